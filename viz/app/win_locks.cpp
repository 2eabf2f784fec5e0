// Lock bits & flags: every lock-bits, flags and array region as a grid of cells (a lock-bits
// region of 1024 bits as 32 x 32), held/free or set/clear, owner and last writer on hover.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "app.h"
#include "lecture.h"

namespace synclab::viz::app {

namespace {

// Grid shape: the region's own 2-D shape, else rows of 32 (one 32-bit word of lock bits per row).
void grid_shape(const RegionInfo& r, uint32_t* rows, uint32_t* cols) {
  if (r.rows > 1 || r.cells <= 32) {
    *rows = r.rows;
    *cols = std::max<uint32_t>(1, r.cols);
    return;
  }
  // About square, in whole 32-bit words: 1024 bits -> 32 x 32, 4096 flags -> 64 x 64.
  uint32_t side = 32;
  while (uint64_t(side) * side < r.cells) side += 32;
  *cols = side;
  *rows = uint32_t((r.cells + side - 1) / side);
}

// The elements of a region an event touches, as the half-open range [lo, hi) (empty: lo == hi).
struct Cells {
  uint64_t lo = 0, hi = 0;
  bool has(uint64_t i) const { return i >= lo && i < hi; }
};

// The elements of region r that the event at the cursor writes (a shared region: of the block
// shown).
Cells written_now(const Event& e, const RegionInfo& r, const RegionView* rv, uint32_t wpb) {
  if (synclab::trace::EventKind(e.kind) != synclab::trace::EventKind::RegionUpdate) return {};
  if ((e.aux & synclab::trace::kRegionIdMask) != r.id) return {};
  if (r.shared && (!rv || int64_t(block_of_warp(e.warp, wpb)) != rv->block)) return {};
  const unsigned bytes = (e.aux & synclab::trace::kRegionBytesMask) >> synclab::trace::kRegionBytesShift;
  if (bytes && r.kind == RegionKind::LockBits) return {e.a, e.a + 8ull * bytes};
  return {e.a, e.a + 1};
}

// The elements of region r of which the event at the cursor reads an older value (MemoryModel
// StaleRead).
Cells read_old_now(const Event& e, const RegionInfo& r, const LaunchInfo& L, const RegionView* rv, size_t ri) {
  using synclab::trace::MemoryModelKind;
  if (synclab::trace::EventKind(e.kind) != synclab::trace::EventKind::MemoryModel) return {};
  if (MemoryModelKind(e.aux & synclab::trace::kMemoryModelKindMask) != MemoryModelKind::StaleRead) return {};
  const bool shared_space = synclab::trace::MemSpace((e.aux >> synclab::trace::kMemoryModelSpaceShift) &
                                                     synclab::trace::kAuxSpaceMask) == synclab::trace::MemSpace::Shared;
  if (shared_space != r.shared) return {};
  uint64_t base = r.address;
  if (r.shared) {  // the block's own shared memory, where this launch has the array
    if (ri >= L.shared_offset.size() || L.shared_offset[ri] < 0 || !rv) return {};
    if (int64_t(block_of_warp(e.warp, L.warps_per_block)) != rv->block) return {};
    base = uint64_t(L.shared_offset[ri]);
  }
  if (e.a < base || e.a - base >= r.bytes) return {};
  const uint64_t off = e.a - base;
  if (r.kind == RegionKind::LockBits) {
    const uint64_t size = uint64_t(1) << ((e.aux >> synclab::trace::kMemoryModelSizeShift) & 7);
    return {off * 8, (off + size) * 8};
  }
  const uint64_t el = off / std::max<uint32_t>(r.elem_bytes, 1);
  return {el, el + 1};
}

}  // namespace

bool locks_region(const RegionInfo& r) {
  return r.kind == RegionKind::LockBits || r.kind == RegionKind::Flags || r.kind == RegionKind::Array;
}

void block_control(App& app) {
  if (!app.has_shared_regions() || app.model().launches().empty()) return;
  const uint64_t blocks = std::max<uint64_t>(1, app.launch_info().blocks);
  const uint64_t cur = std::min<uint64_t>(app.shared_block(), blocks - 1);
  // Previous / next buttons and the number (typed), each recorded for --dump-layout.
  auto record = [&](const char* id, const char* what) {
    if (app.recorder.enabled)
      app.recorder.add(id, ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), palette::kFlagClear, what);
  };
  ImGui::TextUnformatted("block");
  ImGui::SameLine();
  ImGui::PushID("shared_block");
  if (ImGui::ArrowButton("prev", ImGuiDir_Left) && cur > 0) app.set_shared_block(cur - 1);
  record("control:block-prev", "previous block");
  ImGui::SameLine();
  int b = int(std::min<uint64_t>(cur, uint64_t(INT32_MAX)));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4);
  if (ImGui::InputInt("##n", &b, 0, 0)) app.set_shared_block(uint64_t(std::max(b, 0)));
  const std::string shown = "block " + std::to_string(app.shared_block());
  record("control:block", shown.c_str());
  ImGui::SameLine();
  if (ImGui::ArrowButton("next", ImGuiDir_Right) && cur + 1 < blocks) app.set_shared_block(cur + 1);
  record("control:block-next", "next block");
  ImGui::PopID();
  ImGui::SameLine();
  ImGui::TextDisabled("of %" PRIu64, blocks);
  help_marker(
      "Shared regions (__shared__ arrays named with synclab_region_shared) have one copy per block: "
      "this is the block whose copy is drawn (--block N on the command line). Each launch starts with "
      "every copy unwritten: such cells are drawn near-black until a thread of the block writes them.");
}

std::string shared_caption(const App& app, const RegionInfo& r, const RegionView* rv) {
  if (!r.shared) return "";
  if (!rv || rv->cells.empty())
    return "__shared__ " + r.variable + ": not in this launch (" + app.launch_info().display + " has no such array)";
  return "__shared__ " + r.variable + " of block " + std::to_string(rv->block) + " (of " +
         std::to_string(app.launch_info().blocks) + ")";
}

void draw_locks_window(App& app) {
  if (!app.begin_window(WindowId::Locks)) {
    ImGui::End();
    return;
  }
  const Model& m = app.model();
  const State& s = app.state();
  int shown = 0;
  for (const RegionInfo& r : m.regions()) shown += locks_region(r);
  if (shown == 0) {
    ImGui::TextWrapped(
        "No lock-bits, flags or array regions in this trace. A program names them with "
        "synclab_region(ptr, bytes, \"locks\", \"lock-bits\", 32, 32) (synclab/regions.h).");
    ImGui::End();
    return;
  }
  ImGui::TextDisabled("%d region%s", shown, shown == 1 ? "" : "s");
  bool any_shared = false;
  for (const RegionInfo& r : m.regions()) any_shared = any_shared || (locks_region(r) && r.shared);
  if (any_shared) {
    ImGui::SameLine(0, 20);
    block_control(app);
  }
  help_marker(
      "Each lock-bits region is a grid of bits (red: held, green: free); flags and arrays are "
      "grids of words (yellow: non-zero). A white outline marks the cells the event at the cursor "
      "wrote. Under the relaxed memory model (SYNCLAB_MEMORY=relaxed) a blue inner outline marks a "
      "cell whose latest write is not yet visible to every thread, and a pink outline the cell the "
      "event at the cursor read an older value of. Hover a cell for its value, owner and last "
      "writer; click a held lock to select its owner lane.");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Cell size: as wide as the window allows (at most 28 pixels, 48 for the window alone). When
  // the regions then do not all fit the window's height, the ones taller than 2 rows get a
  // smaller cell, the largest at which everything fits (at least 4 pixels; below that the
  // window scrolls), so that a tall lock-bits grid does not push its own rows and the regions
  // below it out of view.
  const float max_cell = app.options.only_window ? 48.0f : 28.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x - 4;
  auto width_cell = [&](uint32_t cols) { return std::max(3.0f, std::min(std::floor(avail_w / cols) - 1, max_cell)); };
  // --lecture: a few lock bits (up to lecture::kBigLockBits) are never smaller than
  // lecture::kMinLockCell pixels. Their row is cut into rows of 16, 8, ... bits when the window is
  // too narrow for it, and they keep that size when the regions do not fit the height (the window
  // scrolls instead).
  auto big_bits = [&](const RegionInfo& r) {
    return lecture::enabled() && r.kind == RegionKind::LockBits && r.cells <= lecture::kBigLockBits;
  };
  auto shape = [&](const RegionInfo& r, uint32_t* rows, uint32_t* cols) {
    grid_shape(r, rows, cols);
    if (!big_bits(r) || width_cell(*cols) >= lecture::kMinLockCell) return;
    uint32_t c = *cols;
    while (c > 1 && (width_cell(c) < lecture::kMinLockCell || (c & (c - 1)) != 0)) --c;  // a power of two
    *cols = c;
    *rows = uint32_t((r.cells + c - 1) / c);
  };
  auto min_cell = [&](const RegionInfo& r) { return big_bits(r) ? lecture::kMinLockCell : 0.0f; };
  float tall_cap = max_cell;
  {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float title_h = ImGui::GetTextLineHeightWithSpacing() + 3 * st.ItemSpacing.y + 1;
    float avail_h = ImGui::GetContentRegionAvail().y - 4;
    auto need = [&](float cap) {  // height of every region with the tall ones capped at cap
      float h = 0;
      for (const RegionInfo& r : m.regions()) {
        if (!locks_region(r)) continue;
        uint32_t rows = 0, cols = 0;
        shape(r, &rows, &cols);
        float c = width_cell(cols);
        if (rows > 2) c = std::max(std::min(c, cap), min_cell(r));
        h += title_h + (r.shared ? ImGui::GetTextLineHeightWithSpacing() : 0.0f) + rows * (c + (c >= 8 ? 1.0f : 0.0f));
      }
      return h;
    };
    if (shown > 1 && need(max_cell) > avail_h) {
      tall_cap = 4;
      for (float c = max_cell - 1; c >= 4; c -= 1)
        if (need(c) <= avail_h) {
          tall_cap = c;
          break;
        }
    }
  }
  for (size_t ri = 0; ri < m.regions().size(); ++ri) {
    const RegionInfo& r = m.regions()[ri];
    if (!locks_region(r)) continue;
    const RegionView* rv = ri < s.regions.size() ? &s.regions[ri] : nullptr;
    uint32_t rows = 0, cols = 0;
    shape(r, &rows, &cols);
    uint64_t held = 0;
    if (rv)
      for (const CellView& c : rv->cells) held += c.value != 0;
    ImGui::Separator();
    ImGui::Text("%s  (%s, %" PRIu64 " %s, %u x %u)", r.name.c_str(), r.kind_name.c_str(), r.cells,
                r.kind == RegionKind::LockBits ? "bits" : "elements", rows, cols);
    ImGui::SameLine();
    ImGui::TextDisabled(r.kind == RegionKind::LockBits ? "%" PRIu64 " held" : "%" PRIu64 " non-zero", held);
    if (r.shared) {  // (a line of its own: narrow windows)
      ImGui::TextDisabled("%s", shared_caption(app, r, rv).c_str());
      if (!rv || rv->cells.empty()) continue;  // the launch's kernel has no such array
    }

    const float avail_h = ImGui::GetContentRegionAvail().y - 4;
    float cell = width_cell(cols);
    if (shown == 1 && avail_h > 0) cell = std::max(3.0f, std::min(cell, std::floor(avail_h / rows) - 1));
    if (rows > 2) cell = std::min(cell, tall_cap);
    cell = std::max(cell, std::min(min_cell(r), width_cell(cols)));
    const float gap = cell >= 8 ? 1.0f : 0.0f;
    const float pitch = cell + gap;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const Event& e = s.event;
    const Cells written = written_now(e, r, rv, app.launch_info().warps_per_block);
    const Cells read_old_cells = read_old_now(e, r, app.launch_info(), rv, ri);
    for (uint32_t row = 0; row < rows; ++row) {
      for (uint32_t colm = 0; colm < cols; ++colm) {
        const uint64_t i = uint64_t(row) * cols + colm;
        if (i >= r.cells) break;
        const CellView* c = rv && i < rv->cells.size() ? &rv->cells[i] : nullptr;
        const uint64_t v = c ? c->value : 0;
        palette::Rgb rgb;
        const char* what;
        const bool unwritten = r.shared && (!c || c->writer_cursor == kNoCursor);
        if (unwritten) {
          rgb = palette::kSharedUnwritten;  // shared memory: nothing the block may read yet
          what = "not written";
        } else if (r.kind == RegionKind::LockBits) {
          rgb = v ? palette::kLockHeld : palette::kLockFree;
          what = v ? "held" : "free";
        } else {
          rgb = v ? palette::kFlagSet : palette::kFlagClear;
          what = v ? "set" : "clear";
        }
        const ImVec2 a(p.x + colm * pitch, p.y + row * pitch), b(a.x + cell, a.y + cell);
        dl->AddRectFilled(a, b, col(rgb));
        // An array element's value, when it fits in the cell (counts, tickets, "2 inside").
        if (r.kind == RegionKind::Array && cell >= 16 && !unwritten) {
          char t[24];
          std::snprintf(t, sizeof t, "%" PRIu64, v);
          const ImVec2 ts = ImGui::CalcTextSize(t);
          if (ts.x <= cell - 2 && ts.y <= cell)
            dl->AddText(ImVec2(a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f),
                        v ? IM_COL32(0, 0, 0, 255) : IM_COL32(150, 150, 160, 255), t);
        }
        if (written.has(i) && cell >= 6)
          dl->AddRect(a, b, col(palette::kCellWritten), 0, 0, cell >= 12 ? 2.0f : 1.0f);
        const bool buffered = c && c->buffered_cursor != kNoCursor;
        if (buffered && cell >= 8) {
          const float in = cell >= 16 ? 3.0f : 2.0f;
          dl->AddRect(ImVec2(a.x + in, a.y + in), ImVec2(b.x - in, b.y - in), col(palette::kCellBuffered), 0, 0,
                      cell >= 16 ? 2.0f : 1.0f);
        }
        const bool read_old = read_old_cells.has(i);
        if (read_old && cell >= 6) dl->AddRect(a, b, col(palette::kCellReadOld), 0, 0, cell >= 12 ? 3.0f : 1.0f);
        if (app.recorder.enabled && buffered)
          app.recorder.add("buffered:" + std::to_string(ri) + ":" + std::to_string(i), a, b, palette::kCellBuffered,
                           "latest write not yet visible to all");
        if (app.recorder.enabled && read_old)
          app.recorder.add("read-old:" + std::to_string(ri) + ":" + std::to_string(i), a, b, palette::kCellReadOld,
                           "read an older value");
        if (c && c->owner_warp != kNoWarp && app.selection.has(c->owner_warp, c->owner_lane) && cell >= 6)
          dl->AddRect(ImVec2(a.x + 2, a.y + 2), ImVec2(b.x - 2, b.y - 2), col(palette::kSelection));
        if (app.recorder.enabled)
          app.recorder.add("locks:" + std::to_string(ri) + ":" + std::to_string(i), a, b, rgb, what);
        if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, ImVec2(b.x + gap, b.y + gap))) {
          ImGui::BeginTooltip();
          ImGui::Text("%s[%" PRIu64 "]  (row %u, column %u)", r.name.c_str(), i, row, colm);
          if (r.shared) ImGui::Text("block %" PRId64 "'s copy", rv->block);
          ImGui::Text("value %" PRIu64 "  (%s)", v, what);
          if (c && c->owner_lane != kNoLane && c->owner_warp != kNoWarp)
            ImGui::Text("owner: %s, since event %" PRIu64, app.thread_name(c->owner_warp, c->owner_lane).c_str(),
                        c->owner_cursor);
          if (c && c->writer_cursor != kNoCursor && c->writer_warp != kNoWarp)
            ImGui::Text("last written by %s at event %" PRIu64,
                        app.thread_name(c->writer_warp, c->writer_lane == kNoLane ? -1 : c->writer_lane).c_str(),
                        c->writer_cursor);
          else
            ImGui::TextDisabled("not written yet");
          if (buffered)
            ImGui::TextWrapped("not yet visible to all (since event %" PRIu64
                               "): threads that have not synchronized with the writer may still read an older value",
                               c->buffered_cursor);
          if (read_old) ImGui::TextWrapped("the event at the cursor read an older value here");
          if (c && c->owner_lane != kNoLane) ImGui::TextDisabled("click to select the owner");
          ImGui::EndTooltip();
          if (ImGui::IsMouseClicked(0) && c && c->owner_lane != kNoLane && c->owner_warp != kNoWarp) {
            app.select_lane(c->owner_warp, c->owner_lane);
            app.lanes_ui.scroll_to_selected = true;
          }
        }
      }
    }
    ImGui::Dummy(ImVec2(cols * pitch, rows * pitch));
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
