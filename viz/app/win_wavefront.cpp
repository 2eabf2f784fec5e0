// Wavefront: a matrix region as a heat map of when each cell was completed (its first update),
// dark where the cursor has not reached it yet, with the front (completed cells next to pending
// ones) outlined. Cells an earlier launch completed (a wavefront of one launch per diagonal) are
// grey: done before this launch began.
#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "app.h"

namespace synclab::viz::app {

namespace {

// The cells of region ri that some launch before the current one completed (their state at the
// end of each earlier launch). Cached per launch and region. A __shared__ region is per launch
// and block: nothing carries over.
const std::vector<uint8_t>& earlier_cells(App& app, int ri) {
  auto& ui = app.wavefront_ui;
  if (ui.earlier_launch == app.launch() && ui.earlier_region == ri) return ui.earlier;
  ui.earlier_launch = app.launch();
  ui.earlier_region = ri;
  ui.earlier.clear();
  const Model& m = app.model();
  if (m.regions()[size_t(ri)].shared) return ui.earlier;
  State s;
  for (int L = 0; L < app.launch(); ++L) {
    const uint64_t steps = m.launches()[size_t(L)].steps;
    if (steps == 0) continue;
    m.state_at(L, steps - 1, &s);
    if (size_t(ri) >= s.regions.size()) continue;
    const auto& cells = s.regions[size_t(ri)].cells;
    if (ui.earlier.size() < cells.size()) ui.earlier.resize(cells.size(), 0);
    for (size_t i = 0; i < cells.size(); ++i) ui.earlier[i] |= cells[i].completion_cursor != kNoCursor;
  }
  return ui.earlier;
}

}  // namespace

// A table a wavefront fills: a matrix, or an array of several rows. Never lock bits or flags, in
// whatever shape (lab 09's lock table of 32 x 32 bits is not a wavefront): Lock bits & flags draws them.
bool wavefront_region(const RegionInfo& r) {
  return r.kind == RegionKind::Matrix || (r.kind == RegionKind::Array && r.rows > 1);
}

void draw_wavefront_window(App& app) {
  if (!app.begin_window(WindowId::Wavefront)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  const auto& regions = m.regions();
  std::vector<int> choices;
  for (size_t i = 0; i < regions.size(); ++i)
    if (wavefront_region(regions[i])) choices.push_back(int(i));
  if (choices.empty()) {
    ImGui::TextWrapped(
        "No matrix region in this trace. A program names one with "
        "synclab_region(ptr, bytes, \"grid\", \"matrix\", rows, cols) (synclab/regions.h).");
    ImGui::End();
    return;
  }
  int& ri = app.wavefront_ui.region;
  if (ri < 0 || size_t(ri) >= regions.size()) ri = choices.front();
  const RegionInfo& r = regions[size_t(ri)];
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("region", r.name.c_str())) {
    for (int c : choices) {
      std::string label = regions[size_t(c)].name + " (" + regions[size_t(c)].kind_name + ")";
      if (ImGui::Selectable(label.c_str(), c == ri)) ri = c;
    }
    ImGui::EndCombo();
  }
  help_marker(
      "Which table to draw (a matrix, or an array of several rows). Each cell is coloured by when it was first written "
      "(dark purple: "
      "early, yellow: late); dark grey cells are not written yet at the cursor; light grey cells were "
      "written by an earlier launch. White outlines mark the front: written cells next to cells still "
      "pending.");
  ImGui::SameLine();
  ImGui::Checkbox("numbers", &app.wavefront_ui.numbers);
  help_marker("Print each cell's completion time (event time) in it when the cell is big enough.");

  const State& s = app.state();
  const RegionView* rv = size_t(ri) < s.regions.size() ? &s.regions[size_t(ri)] : nullptr;
  if (r.shared) {  // one copy per block: which one, and whether this launch has it
    ImGui::SameLine(0, 20);
    block_control(app);
    ImGui::TextDisabled("%s", shared_caption(app, r, rv).c_str());
  }
  const uint32_t rows = std::max<uint32_t>(1, r.rows), cols = std::max<uint32_t>(1, r.cols);
  const std::vector<uint8_t>& earlier = earlier_cells(app, ri);
  auto earlier_at = [&](uint64_t i) { return i < earlier.size() && earlier[i]; };
  uint64_t done = 0, before = 0;
  if (rv)
    for (size_t i = 0; i < rv->cells.size(); ++i) {
      const bool now = rv->cells[i].completion_cursor != kNoCursor;
      done += now;
      before += !now && earlier_at(i);
    }
  char done_text[96];
  if (before)
    std::snprintf(done_text, sizeof done_text, "%" PRIu64 " of %" PRIu64 " cells done (%" PRIu64 " by earlier launches)",
                  done + before, r.cells, before);
  else
    std::snprintf(done_text, sizeof done_text, "%" PRIu64 " of %" PRIu64 " cells done", done, r.cells);
  ImGui::SameLine(0, 20);
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(done_text).x) ImGui::NewLine();
  ImGui::TextUnformatted(done_text);

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float cell = std::floor(std::min((avail.x - 2) / cols, (avail.y - 2) / rows));
  cell = std::max(1.0f, std::min(cell, 64.0f));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto done_at = [&](uint32_t row, uint32_t c) {
    const uint64_t i = uint64_t(row) * cols + c;
    return (rv && i < rv->cells.size() && rv->cells[i].completion_cursor != kNoCursor) || earlier_at(i);
  };
  for (uint32_t row = 0; row < rows; ++row) {
    for (uint32_t c = 0; c < cols; ++c) {
      const uint64_t i = uint64_t(row) * cols + c;
      if (i >= r.cells) break;
      const CellView* cv = rv && i < rv->cells.size() ? &rv->cells[i] : nullptr;
      const bool is_done = cv && cv->completion_cursor != kNoCursor;
      const bool by_earlier = !is_done && earlier_at(i);
      const palette::Rgb rgb = is_done      ? palette::heat(app.time_fraction(cv->completion_time))
                               : by_earlier ? palette::kHeatEarlier
                                            : palette::kHeatPending;
      const ImVec2 a(p.x + c * cell, p.y + row * cell), b(a.x + cell, a.y + cell);
      dl->AddRectFilled(a, b, col(rgb));
      // The front: done, with a pending neighbour (right, below, left or above).
      bool front = false;
      if (is_done) {
        front = (c + 1 < cols && !done_at(row, c + 1)) || (row + 1 < rows && !done_at(row + 1, c)) ||
                (c > 0 && !done_at(row, c - 1)) || (row > 0 && !done_at(row - 1, c));
        if (front && cell >= 5) dl->AddRect(a, b, col(palette::kHeatFront), 0, 0, cell >= 14 ? 2.0f : 1.0f);
      }
      if (app.wavefront_ui.numbers && is_done && cell >= 28) {
        char t[24];
        std::snprintf(t, sizeof t, "%" PRIu64, cv->completion_time);
        dl->AddText(ImVec2(a.x + 2, a.y + 2), IM_COL32(0, 0, 0, 255), t);
      }
      if (app.recorder.enabled)
        app.recorder.add("wavefront:" + std::to_string(ri) + ":" + std::to_string(row) + ":" + std::to_string(c), a, b,
                         rgb, is_done ? (front ? "front" : "done") : by_earlier ? "earlier" : "pending");
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, b)) {
        ImGui::BeginTooltip();
        ImGui::Text("%s[%u][%u]", r.name.c_str(), row, c);
        if (is_done) {
          ImGui::Text("completed at time %" PRIu64 " (event %" PRIu64 ")", cv->completion_time, cv->completion_cursor);
          ImGui::Text("value %" PRIu64, cv->value);
          if (cv->writer_warp != kNoWarp)
            ImGui::Text("last written by %s",
                        app.thread_name(cv->writer_warp, cv->writer_lane == kNoLane ? -1 : cv->writer_lane).c_str());
          ImGui::TextDisabled("click to jump to its completion");
        } else if (by_earlier) {
          ImGui::TextDisabled("completed by an earlier launch");
        } else {
          ImGui::TextDisabled("not completed yet");
        }
        ImGui::EndTooltip();
        if (is_done && ImGui::IsMouseClicked(0)) app.seek(cv->completion_cursor);
      }
    }
  }
  ImGui::Dummy(ImVec2(cols * cell, rows * cell));
  ImGui::End();
}

}  // namespace synclab::viz::app
