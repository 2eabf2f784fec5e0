// Wavefront: a matrix region as a heat map of when each cell was completed (its first update),
// dark where the cursor has not reached it yet, with the front (completed cells next to pending
// ones) outlined. Cells an earlier launch completed (a wavefront of one launch per diagonal) are
// grey: done before this launch began.
//
// The grid takes as much of the window as it can: its controls and, when no Legend is drawn beside
// it (an export of --window wavefront, a --layout without legend), a colour key of those states go
// in a column beside it or in lines above and below it, whichever leaves the larger cells. Cells
// may be a fraction of a pixel apart; their edges are rounded to whole pixels.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

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

// ---- the colour key ----------------------------------------------------------------------------
// One entry per state a cell is drawn in: its swatch (the completion ramp for "done") and a label.
struct KeyEntry {
  const char* state;  // "done", "front", "earlier", "pending": the cells' `what` in --dump-layout
  const char* label;
};

// The states region r's cells can be in, from the trace (not the cursor), so that the key stays
// the same in every frame of an animation: "done by an earlier launch" only where a launch can
// follow another (a __shared__ region starts empty in each launch).
std::vector<KeyEntry> key_entries(const Model& m, const RegionInfo& r) {
  std::vector<KeyEntry> key = {{"done", "done, early to late"}, {"front", "front of the wave"}};
  if (!r.shared && m.launches().size() > 1) key.push_back({"earlier", "done by an earlier launch"});
  key.push_back({"pending", "not written yet"});
  return key;
}

constexpr int kRampSlices = 15;  // odd: the ramp's middle slice is heat(0.5)

float swatch_width(const KeyEntry& e) {
  const float h = ImGui::GetTextLineHeight();
  return std::strcmp(e.state, "done") == 0 ? 3 * h : h;
}

float entry_width(const KeyEntry& e) {
  return swatch_width(e) + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(e.label).x;
}

// Where each entry goes, from the key's top left: one a line (column), or as many a line as
// `width` holds. *size: the key's.
std::vector<ImVec2> key_places(const std::vector<KeyEntry>& key, bool column, float width, ImVec2* size) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeight() + st.ItemSpacing.y, apart = 3 * st.ItemSpacing.x;
  std::vector<ImVec2> at;
  float x = 0, y = 0, w = 0;
  for (const KeyEntry& e : key) {
    const float ew = entry_width(e);
    if (!column && x > 0 && x + ew > width) {
      x = 0;
      y += line;
    }
    at.emplace_back(x, y);
    w = std::max(w, x + ew);
    if (column)
      y += line;
    else
      x += ew + apart;
  }
  const float h = key.empty() ? 0 : (column ? y : y + line) - st.ItemSpacing.y;
  *size = ImVec2(std::ceil(w), std::ceil(h));
  return at;
}

// The key with its top left at `p`; each swatch recorded as wavefront-key:STATE (the ramp's slices
// as wavefront-ramp:K), in the colour its cells are drawn with.
void draw_key(App& app, const std::vector<KeyEntry>& key, const std::vector<ImVec2>& at, ImVec2 p) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  for (size_t k = 0; k < key.size(); ++k) {
    const KeyEntry& e = key[k];
    const ImVec2 a(std::round(p.x + at[k].x), std::round(p.y + at[k].y)), b(a.x + swatch_width(e), a.y + h);
    palette::Rgb rgb = palette::kHeatPending;
    if (std::strcmp(e.state, "done") == 0) {
      for (int i = 0; i < kRampSlices; ++i) {
        const ImVec2 s0(std::round(a.x + (b.x - a.x) * i / kRampSlices), a.y),
            s1(std::round(a.x + (b.x - a.x) * (i + 1) / kRampSlices), b.y);
        const palette::Rgb c = palette::heat((i + 0.5) / kRampSlices);
        dl->AddRectFilled(s0, s1, col(c));
        if (app.recorder.enabled) app.recorder.add("wavefront-ramp:" + std::to_string(i), s0, s1, c, "done");
      }
      rgb = palette::heat(0.5);
    } else if (std::strcmp(e.state, "front") == 0) {
      dl->AddRectFilled(a, b, col(palette::heat(0.5)));
      dl->AddRect(a, b, col(palette::kHeatFront), 0, 0, 2.0f);
      rgb = palette::kHeatFront;  // (the outline)
    } else {
      if (std::strcmp(e.state, "earlier") == 0) rgb = palette::kHeatEarlier;
      dl->AddRectFilled(a, b, col(rgb));
    }
    if (app.recorder.enabled) app.recorder.add(std::string("wavefront-key:") + e.state, a, b, rgb, e.label);
    dl->AddText(ImVec2(b.x + ImGui::GetStyle().ItemInnerSpacing.x, a.y), ImGui::GetColorU32(ImGuiCol_Text), e.label);
  }
}

std::string done_text(uint64_t done, uint64_t cells, uint64_t before) {
  char t[128];
  if (before)
    std::snprintf(t, sizeof t, "%" PRIu64 " of %" PRIu64 " cells done (%" PRIu64 " by earlier launches)", done + before,
                  cells, before);
  else
    std::snprintf(t, sizeof t, "%" PRIu64 " of %" PRIu64 " cells done", done, cells);
  return t;
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
  const State& s = app.state();
  const RegionView* rv = size_t(ri) < s.regions.size() ? &s.regions[size_t(ri)] : nullptr;
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

  // ---- where things go: the controls and the key in a column beside the grid, or in lines above
  // and below it, whichever gives the larger cells. Measured on the longest count the trace can
  // give, so that the grid keeps its size and place in every frame of an animation.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float font = ImGui::GetFontSize(), line = ImGui::GetFrameHeightWithSpacing();
  const ImVec2 origin = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  const bool shared_block = r.shared && app.has_shared_regions();
  const std::string caption = r.shared ? shared_caption(app, r, rv) : "";
  const bool several_launches = !r.shared && m.launches().size() > 1;  // (cells done by an earlier launch)
  const std::string widest_count = done_text(0, r.cells, several_launches ? r.cells : 0);
  const float help_w = ImGui::CalcTextSize("(?)").x;
  const float region_label_w = ImGui::CalcTextSize("region").x + st.ItemInnerSpacing.x + st.ItemSpacing.x + help_w;
  const float numbers_w =
      ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize("numbers").x + st.ItemSpacing.x + help_w;
  const float block_w = shared_block ? ImGui::CalcTextSize("block").x + 2 * ImGui::GetFrameHeight() + font * 4 +
                                           ImGui::CalcTextSize("of 9999").x + 5 * st.ItemSpacing.x + help_w
                                     : 0;
  std::vector<KeyEntry> key;
  if (!app.drawn(WindowId::Legend)) key = key_entries(m, r);  // (else the Legend has them)
  float widest_entry = 0;
  for (const KeyEntry& e : key) widest_entry = std::max(widest_entry, entry_width(e));
  if (widest_entry > avail.x) key.clear();  // a window too narrow for a label: the Legend's key only
  ImVec2 key_column, key_lines;
  const std::vector<ImVec2> at_column = key_places(key, true, 0, &key_column);
  const std::vector<ImVec2> at_lines = key_places(key, false, avail.x, &key_lines);
  const float key_gap = key.empty() ? 0 : 2 * st.ItemSpacing.y;
  // Beside: a column as wide as its widest line (the combo box takes what the others leave).
  const float panel_w = std::ceil(std::max(
      {region_label_w + font * 6, numbers_w, block_w, key_column.x, ImGui::CalcTextSize("0 of 0 cells done").x}));
  const float gap = 2 * st.ItemSpacing.x;
  const float panel_h =
      2 * line + (shared_block ? line : 0) +
      (r.shared ? ImGui::CalcTextSize(caption.c_str(), nullptr, false, panel_w).y + st.ItemSpacing.y : 0) +
      key_column.y + key_gap + ImGui::CalcTextSize(widest_count.c_str(), nullptr, false, panel_w).y;
  const bool beside_fits = avail.x - panel_w - gap >= cols && panel_h <= avail.y;
  const float cell_beside = beside_fits ? std::min((avail.x - panel_w - gap) / cols, avail.y / rows) : 0;
  // Above and below: the controls' line, the caption, the count (on the controls' line when it fits), the key.
  const float controls_w = region_label_w + font * 10 + numbers_w + (shared_block ? 20 + block_w : 0);
  const bool count_on_line = !r.shared && controls_w + 20 + ImGui::CalcTextSize(widest_count.c_str()).x <= avail.x;
  const float header_h = line + (r.shared ? ImGui::CalcTextSize(caption.c_str(), nullptr, false, avail.x).y : 0) +
                         (count_on_line ? 0 : ImGui::CalcTextSize(widest_count.c_str(), nullptr, false, avail.x).y) +
                         st.ItemSpacing.y;
  const float cell_lines = std::min(avail.x / cols, (avail.y - header_h - key_gap - key_lines.y) / rows);
  const bool beside = cell_beside > cell_lines;

  // ---- the controls ------------------------------------------------------------------------------
  float panel_x = 0, grid_x = 0, grid_y = 0, cell = 0;
  if (beside) {
    cell = cell_beside;
    const float wide = cols * cell + gap + panel_w;
    grid_x = std::floor(origin.x + std::max(0.0f, (avail.x - wide) * 0.5f));
    grid_y = std::floor(origin.y + std::max(0.0f, (avail.y - rows * cell) * 0.5f));
    panel_x = std::round(grid_x + cols * cell + gap);
    ImGui::SetCursorScreenPos(ImVec2(panel_x, std::max(origin.y, std::min(grid_y, origin.y + avail.y - panel_h))));
    ImGui::Indent(panel_x - origin.x);  // each line of the column starts at panel_x
    ImGui::PushTextWrapPos(panel_x + panel_w - ImGui::GetWindowPos().x);
  }
  ImGui::SetNextItemWidth(beside ? panel_w - region_label_w : font * 10);
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
  if (!beside) ImGui::SameLine();
  ImGui::Checkbox("numbers", &app.wavefront_ui.numbers);
  help_marker("Print each cell's completion time (event time) in it when the cell is big enough.");
  if (r.shared) {  // one copy per block: which one, and whether this launch has it
    if (!beside) ImGui::SameLine(0, 20);
    block_control(app);
    if (beside) {  // (wrapped at the column's edge)
      ImGui::PushStyleColor(ImGuiCol_Text, st.Colors[ImGuiCol_TextDisabled]);
      ImGui::TextUnformatted(caption.c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::TextDisabled("%s", caption.c_str());
    }
  }
  const std::string count = done_text(done, r.cells, before);
  if (beside) {
    ImGui::Dummy(ImVec2(0, key_gap * 0.5f));
    const ImVec2 k = ImGui::GetCursorScreenPos();
    draw_key(app, key, at_column, k);
    ImGui::Dummy(key_column);
    if (!key.empty()) ImGui::Dummy(ImVec2(0, key_gap * 0.5f));
    ImGui::TextUnformatted(count.c_str());  // (wrapped at the column's edge)
    ImGui::PopTextWrapPos();
    ImGui::Unindent(panel_x - origin.x);
  } else {
    if (count_on_line)
      ImGui::SameLine(0, 20);
    else if (ImGui::GetCursorScreenPos().x > origin.x + 1)
      ImGui::NewLine();
    wrapped_text(count.c_str());
    // The grid below what was drawn, as large as the room left above the key allows.
    const float top = ImGui::GetCursorScreenPos().y, room = origin.y + avail.y - top - key_gap - key_lines.y;
    cell = std::min(avail.x / cols, room / rows);
    grid_x = std::floor(origin.x + std::max(0.0f, (avail.x - cols * cell) * 0.5f));
    grid_y = std::floor(top + std::max(0.0f, (room - rows * cell) * 0.5f));
    draw_key(
        app, key, at_lines,
        ImVec2(std::floor(origin.x + std::max(0.0f, (avail.x - key_lines.x) * 0.5f)), grid_y + rows * cell + key_gap));
  }
  cell = std::max(1.0f, cell);

  // ---- the grid: cell (row, c) from edge(c) to edge(c + 1), edges on whole pixels -------------------
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto edge = [&](float from, uint32_t k) { return std::round(from + k * cell); };
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
      const ImVec2 a(edge(grid_x, c), edge(grid_y, row)), b(edge(grid_x, c + 1), edge(grid_y, row + 1));
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
                         rgb,
                         is_done      ? (front ? "front" : "done")
                         : by_earlier ? "earlier"
                                      : "pending");
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
  // What the window holds, for ImGui: the grid (the controls and the key are items of their own).
  ImGui::SetCursorScreenPos(ImVec2(grid_x, grid_y));
  ImGui::Dummy(ImVec2(edge(grid_x, cols) - grid_x, edge(grid_y, rows) - grid_y));
  ImGui::End();
}

}  // namespace synclab::viz::app
