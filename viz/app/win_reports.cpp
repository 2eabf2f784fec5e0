// Reports: the checkers' and progress reports. Clicking one jumps to its event and selects the
// lanes it names.
#include <cinttypes>

#include "app.h"

namespace synclab::viz::app {

void draw_reports_window(App& app) {
  const Model& m = app.model();
  const auto& reps = m.reports();
  char title[64];
  std::snprintf(title, sizeof title, "%s (%zu)###%s", window_title(WindowId::Reports), reps.size(),
                window_title(WindowId::Reports));
  app.place_window(WindowId::Reports);
  bool* p_open = app.options.only_window ? nullptr : &app.open[int(WindowId::Reports)];
  if (!ImGui::Begin(title, p_open)) {
    ImGui::End();
    return;
  }
  if (reps.empty()) {
    ImGui::TextDisabled("No reports: the checkers found nothing in this run.");
    ImGui::End();
    return;
  }
  ImGui::TextDisabled("click a report to jump to it");
  help_marker(
      "Reports from the simulator's checkers and progress monitor (races, hangs, deadlocks, ...). "
      "Clicking one moves the cursor to its event and selects the lanes it names (white outlines "
      "in Warp lanes); its full text is shown below the list.");
  const float list_h = app.reports_ui.selected >= 0 ? ImGui::GetContentRegionAvail().y * 0.5f : 0;
  if (ImGui::BeginTable(
          "reports", 5,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable,
          ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("launch", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("title", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < reps.size(); ++i) {
      const ReportInfo& r = reps[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char id[32];
      std::snprintf(id, sizeof id, "%" PRIu64 "##rep%zu", r.id, i);
      if (ImGui::Selectable(id, app.reports_ui.selected == int(i), ImGuiSelectableFlags_SpanAllColumns))
        app.jump_to_report(i);
      if (app.recorder.enabled)
        app.recorder.add("reports:" + std::to_string(i), ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                         palette::Rgb{0, 0, 0}, r.title.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.text.c_str());
      ImGui::TableNextColumn();
      const ImVec4 c = r.severity == "error"     ? ImVec4(1, 0.45f, 0.45f, 1)
                       : r.severity == "warning" ? ImVec4(1, 0.8f, 0.3f, 1)
                                                 : ImVec4(0.7f, 0.8f, 1, 1);
      ImGui::TextColored(c, "%s", r.kind.c_str());
      ImGui::TableNextColumn();
      if (r.line > 0) ImGui::Text("%" PRId64, r.line);
      ImGui::TableNextColumn();
      if (r.launch >= 0 && size_t(r.launch) < m.launches().size())
        ImGui::Text("%" PRIu64, m.launches()[size_t(r.launch)].launch);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.title.c_str());
    }
    ImGui::EndTable();
  }
  if (app.reports_ui.selected >= 0 && size_t(app.reports_ui.selected) < reps.size()) {
    const ReportInfo& r = reps[size_t(app.reports_ui.selected)];
    ImGui::Separator();
    ImGui::BeginChild("##report_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(r.text.c_str());
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
