// Source: the CUDA source file of the selected lane's warp (or the first warp that ran), with the
// warp's current line highlighted and the lines where other warps are marked.
#include <algorithm>
#include <map>

#include "app.h"

namespace synclab::viz::app {

void draw_source_window(App& app) {
  if (!app.begin_window(WindowId::Source)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  if (m.launches().empty()) {
    ImGui::TextDisabled("No launches.");
    ImGui::End();
    return;
  }
  // Whose line: the selected warp, else the warp of the event at the cursor, else the first
  // warp that has stepped.
  uint32_t warp = app.selection.warp;
  int lane = app.selection.lane;
  const State& s = app.state();
  if (warp == kNoWarp && s.cursor != kNoCursor && s.event.warp < app.launch_info().warps) {
    warp = s.event.warp;
    lane = s.event.lane == kNoLane ? -1 : s.event.lane;
  }
  const WarpView* v = warp != kNoWarp ? app.warp_view(warp) : nullptr;
  if (!v || !v->has_step) {
    for (const WarpView& w : s.warps)
      if (w.has_step) {
        v = &w;
        warp = w.warp;
        lane = -1;
        break;
      }
  }
  if (!v || !v->has_step) {
    if (m.header().gpu && m.launches()[size_t(app.launch())].steps > 0 && !s.warps.empty() && !s.warps[0].has_step &&
        m.next(app.launch(), kNoCursor, Mark::WarpStep) == kNoCursor)
      ImGui::TextWrapped(
          "This trace was recorded on a GPU: it holds the program's memory, region and barrier "
          "events, not the warps' instructions, so there is no current line to show.");
    else
      wrapped_text("No warp has executed an instruction yet at this event.", true);
    ImGui::End();
    return;
  }
  const std::string& path = app.file_path(v->file);
  const SourceFunction* fn = m.function(app.launch(), v->function);
  wrapped_text((app.thread_name(warp, lane) + ", line " + std::to_string(v->line)).c_str());
  help_marker(
      "The selected lane's warp (click a lane in Warp lanes to choose; without a selection, the warp "
      "of the event at the cursor), its current line highlighted. Lines where other warps of the "
      "launch currently are have a blue background; the numbers on the right say how many warps.");
  if (fn) {  // on the same line when it fits there, else wrapped below
    const std::string in = "in " + (fn->display.empty() ? fn->name : fn->display);
    ImGui::SameLine(0, 16);
    if (ImGui::CalcTextSize(in.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
    wrapped_text(in.c_str(), true);
  }
  wrapped_text(path.empty() ? "(no file name in the trace)" : app.shown(path).c_str(), true);
  const std::vector<std::string>* lines = path.empty() ? nullptr : m.source_lines(path);
  if (!lines) {
    ImGui::Spacing();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "The source file is not on disk here.");
    app.recorder.add("source:missing", p0, ImGui::GetItemRectMax(), palette::Rgb{255, 153, 77}, "file not on disk");
    ImGui::TextWrapped(
        "The trace names the file as it was when the program was built: %s. Run the viewer on "
        "the machine (and checkout) that built it, or copy the file there. Line %u is where the "
        "warp is.",
        path.empty() ? "(none)" : app.shown(path).c_str(), v->line);
    ImGui::End();
    return;
  }
  // Other warps' lines in this file (only the warps in the computed state).
  std::map<uint32_t, int> others;
  for (const WarpView& w : s.warps)
    if (w.has_step && w.warp != warp && app.file_path(w.file) == path) ++others[w.line];

  if (path != app.source_ui.last_file || v->line != app.source_ui.last_line) {
    app.source_ui.scroll = true;
    app.source_ui.last_file = path;
    app.source_ui.last_line = v->line;
  }
  ImGui::BeginChild("##source_text", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  if (app.source_ui.scroll && v->line > 0) {
    ImGui::SetScrollY(std::max(0.0f, (v->line - 1) * lh - ImGui::GetWindowHeight() * 0.4f));
    app.source_ui.scroll = false;
  }
  ImGuiListClipper clipper;
  clipper.Begin(int(lines->size()), lh);
  const float width = std::max(ImGui::GetWindowWidth(), ImGui::GetContentRegionAvail().x);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t n = uint32_t(i + 1);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      if (n == v->line) {
        dl->AddRectFilled(p, ImVec2(p.x + width, p.y + lh), col(palette::kSourceLine));
        const float visible_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
        app.recorder.add("source:line", p, ImVec2(std::min(p.x + width, visible_x1), p.y + lh), palette::kSourceLine,
                         "current line");
      } else if (others.count(n)) {
        dl->AddRectFilled(p, ImVec2(p.x + width, p.y + lh), col(palette::kSourceOther));
      }
      ImGui::TextDisabled("%4u", n);
      ImGui::SameLine();
      ImGui::TextUnformatted((*lines)[size_t(i)].c_str());
      auto it = others.find(n);
      if (it != others.end()) {
        ImGui::SameLine();
        ImGui::TextDisabled("  <- %d other warp%s", it->second, it->second == 1 ? "" : "s");
      }
      if (n == v->line) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.85f, 0.3f, 1), "  <- warp %u", warp);
      }
    }
  }
  clipper.End();
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace synclab::viz::app
