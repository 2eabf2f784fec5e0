// Help: keyboard shortcuts and how to read the windows.
#include "app.h"

namespace synclab::viz::app {

void draw_help_window(App& app) {
  if (!app.begin_window(WindowId::Help)) {
    ImGui::End();
    return;
  }
  ImGui::TextUnformatted("Keyboard shortcuts");
  ImGui::Separator();
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 13);
    ImGui::TableSetupColumn("what");
    for (const Shortcut& s : shortcuts()) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.what);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::TextUnformatted("Mouse");
  ImGui::Separator();
  ImGui::BulletText("Warp lanes: click a lane to select it (Source follows it); hover for its thread.");
  ImGui::BulletText("Lock bits & flags: hover a cell for its value, owner and last writer; click a held");
  ImGui::TextUnformatted("    lock to select its owner.");
  ImGui::BulletText("Timeline: click to move the cursor there; wheel to zoom around the mouse;");
  ImGui::TextUnformatted("    drag (or Shift+wheel) to pan.");
  ImGui::BulletText("Reports: click a report to jump to it and select the lanes it names.");
  ImGui::Spacing();
  ImGui::TextUnformatted("Reading it");
  ImGui::Separator();
  ImGui::TextWrapped(
      "The cursor is one event of one kernel launch; every window shows the state just after that "
      "event. A warp's row in Warp lanes shows its 32 lanes: green lanes run the warp's current "
      "instruction, blue ones are masked off (the warp diverged). The viewer opens at the first "
      "interesting event: the first report, else the first barrier release or lock acquire; ] and [ "
      "step to the next and previous report, barrier release or lock acquire, one per press.");
  ImGui::Spacing();
  ImGui::TextDisabled("Export for slides: synclab-viz TRACE --export out.png --step N [--window NAME]");
  ImGui::TextDisabled("For a projector: synclab-viz TRACE --lecture (a palette checked for red-green colour");
  ImGui::TextDisabled("blindness, a larger font; Page Down / Page Up, as presentation remotes send, act as ] and [)");
  ImGui::TextDisabled("(docs/viz.md)");
  ImGui::End();
}

}  // namespace synclab::viz::app
