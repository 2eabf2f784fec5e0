// Lock bits & flags: every lock-bits, flags and array region as a grid of cells (a lock-bits
// region of 1024 bits as 32 x 32), held/free or set/clear, owner and last writer on hover. In
// lecture mode a lock-bits region of more than lecture::kBigLockBits bits also gets a zoomed
// detail of the 32-bit words that matter at the cursor (zoom_focus below), its part of the
// overview outlined.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

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

// The elements of region r that `size` bytes at `addr` hold, accessed by a lane of `warp`: global
// memory at its address, shared memory (shared_space) at its offset in the block's shared memory,
// of the block shown. Empty when they are not in r.
Cells cells_at(uint64_t addr, uint64_t size, bool shared_space, uint32_t warp, const RegionInfo& r, const LaunchInfo& L,
               const RegionView* rv, size_t ri) {
  if (shared_space != r.shared) return {};
  uint64_t base = r.address;
  if (r.shared) {  // the block's own shared memory, where this launch has the array
    if (ri >= L.shared_offset.size() || L.shared_offset[ri] < 0 || !rv) return {};
    if (int64_t(block_of_warp(warp, L.warps_per_block)) != rv->block) return {};
    base = uint64_t(L.shared_offset[ri]);
  }
  if (addr < base || addr - base >= r.bytes) return {};
  const uint64_t off = addr - base;
  if (r.kind == RegionKind::LockBits) return {off * 8, (off + size) * 8};
  const uint64_t el = off / std::max<uint32_t>(r.elem_bytes, 1);
  return {el, el + 1};
}

// The elements of region r of which the event at the cursor reads an older value (MemoryModel
// StaleRead).
Cells read_old_now(const Event& e, const RegionInfo& r, const LaunchInfo& L, const RegionView* rv, size_t ri) {
  using synclab::trace::MemoryModelKind;
  if (synclab::trace::EventKind(e.kind) != synclab::trace::EventKind::MemoryModel) return {};
  if (MemoryModelKind(e.aux & synclab::trace::kMemoryModelKindMask) != MemoryModelKind::StaleRead) return {};
  const bool shared_space = synclab::trace::MemSpace((e.aux >> synclab::trace::kMemoryModelSpaceShift) &
                                                     synclab::trace::kAuxSpaceMask) == synclab::trace::MemSpace::Shared;
  const uint64_t size = uint64_t(1) << ((e.aux >> synclab::trace::kMemoryModelSizeShift) & 7);
  return cells_at(e.a, size, shared_space, e.warp, r, L, rv, ri);
}

// The elements of region r that the event at the cursor loads, stores or changes atomically
// (MemAccess, Atomic): a spinning lane's atomicOr on a lock word too.
Cells accessed_now(const Event& e, const RegionInfo& r, const LaunchInfo& L, const RegionView* rv, size_t ri) {
  using synclab::trace::EventKind;
  using synclab::trace::MemSpace;
  if (EventKind(e.kind) != EventKind::MemAccess && EventKind(e.kind) != EventKind::Atomic) return {};
  const MemSpace space = MemSpace(e.aux & synclab::trace::kAuxSpaceMask);
  if (space != MemSpace::Global && space != MemSpace::Shared && space != MemSpace::HostMapped) return {};
  const uint64_t size = uint64_t(1) << ((e.aux >> synclab::trace::kAuxSizeShift) & 7);
  return cells_at(e.a, size, space == MemSpace::Shared, e.warp, r, L, rv, ri);
}

// ---- the zoomed detail of a large lock table (--lecture) -------------------------------------------

constexpr float kZoomGap = 16;     // between the overview and the detail
constexpr float kZoomWordGap = 4;  // between two words of the detail
constexpr uint64_t kMaxZoomWords = 4;

// The detail's grid: its bits kMinLockCell to kMaxZoomCell pixels, `cols` a row (32: a word a row;
// 16, 8, ... where the room is narrower), beside the overview when the overview keeps
// kMinOverviewCell pixels a bit and the detail 8 bits a row, else below it.
struct ZoomGrid {
  bool on = false;
  bool beside = false;
  uint32_t cols = 32;
  float cell = lecture::kMinLockCell;
  float pitch() const { return cell + 1; }
  float width() const { return cols * pitch() - 1; }
  uint32_t word_rows() const { return (32 + cols - 1) / cols; }
  float word_height() const { return word_rows() * pitch() + kZoomWordGap; }
  // Where bit j of the detail (j = 0: its first bit) is drawn, from the grid's top left corner.
  ImVec2 at(uint64_t j) const {
    return ImVec2(float(j % cols) * pitch(), float(j / cols) * pitch() + float(j / 32) * kZoomWordGap);
  }
};

ZoomGrid zoom_grid(const RegionInfo& r, uint32_t overview_rows, uint32_t overview_cols, float avail_w, float label_h) {
  ZoomGrid z;
  if (!lecture::enabled() || r.kind != RegionKind::LockBits || r.cells <= lecture::kBigLockBits) return z;
  z.on = true;
  const float min_pitch = lecture::kMinLockCell + 1;
  const float beside_room = avail_w - overview_cols * lecture::kMinOverviewCell - kZoomGap;
  z.beside = beside_room >= 8 * min_pitch;
  const float room = z.beside ? beside_room : avail_w;
  while (z.cols > 1 && z.cols * min_pitch > room) z.cols /= 2;
  float c = std::floor(room / z.cols) - 1;
  // Beside the overview: a word no taller than the overview at its smallest, under the label.
  if (z.beside) c = std::min(c, std::floor((overview_rows * lecture::kMinOverviewCell - label_h) / z.word_rows()) - 1);
  z.cell = std::max(lecture::kMinLockCell, std::min(c, lecture::kMaxZoomCell));
  return z;
}

// The word (32 bits: bits 32w to 32w + 31) the detail starts at, and why.
struct ZoomFocus {
  uint64_t word = 0;
  std::string why;
};

// A number in `text` at `pos` (base 10 or 16), moving pos past it; false when there is none.
bool number_at(const std::string& text, size_t* pos, int base, uint64_t* out) {
  if (*pos >= text.size()) return false;
  const char* begin = text.c_str() + *pos;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(begin, &end, base);
  if (end == begin) return false;
  *pos += size_t(end - begin);
  *out = v;
  return true;
}

// The first bit of region r that a hang or deadlock report's text says its spinning lanes poll
// ("polling 0x7f0000001000 (...)", "polling shared memory of block 0: __shared__ ...::locks, byte 4",
// "... of block 0, offset 0x84"; sim/exec/progress.cpp writes them), or false when it names none.
bool report_names_bit(const std::string& text, const RegionInfo& r, const LaunchInfo& L, const RegionView* rv,
                      size_t ri, uint64_t* bit) {
  for (size_t at = text.find("polling "); at != std::string::npos; at = text.find("polling ", at + 1)) {
    size_t pos = at + 8;
    uint64_t addr = 0, block = 0, byte = 0;
    if (text.compare(pos, 2, "0x") == 0) {
      pos += 2;
      if (!r.shared && number_at(text, &pos, 16, &addr) && addr >= r.address && addr - r.address < r.bytes) {
        *bit = (addr - r.address) * 8;
        return true;
      }
      continue;
    }
    static const std::string kShared = "shared memory of block ";
    if (!r.shared || !rv || text.compare(pos, kShared.size(), kShared) != 0) continue;
    pos += kShared.size();
    if (!number_at(text, &pos, 10, &block) || int64_t(block) != rv->block) continue;
    static const std::string kVar = ": __shared__ ", kOffset = ", offset 0x";
    if (text.compare(pos, kVar.size(), kVar) == 0) {
      pos += kVar.size();
      const size_t comma = text.find(", byte ", pos);
      const size_t eol = text.find('\n', pos);
      if (comma == std::string::npos || comma > eol) continue;
      const std::string name = text.substr(pos, comma - pos);
      const bool same = name == r.variable ||
                        (name.size() > r.variable.size() + 2 &&
                         name.compare(name.size() - r.variable.size() - 2, std::string::npos, "::" + r.variable) == 0);
      pos = comma + 7;
      if (same && number_at(text, &pos, 10, &byte) && byte < r.bytes) {
        *bit = byte * 8;
        return true;
      }
    } else if (text.compare(pos, kOffset.size(), kOffset) == 0) {
      pos += kOffset.size();
      if (ri < L.shared_offset.size() && L.shared_offset[ri] >= 0 && number_at(text, &pos, 16, &addr) &&
          addr >= uint64_t(L.shared_offset[ri]) && addr - uint64_t(L.shared_offset[ri]) < r.bytes) {
        *bit = (addr - uint64_t(L.shared_offset[ri])) * 8;
        return true;
      }
    }
  }
  return false;
}

// Which part of a large lock table matters at the cursor, the first that applies: the bits the
// event at the cursor wrote, read or changed; the bits the latest hang or deadlock report of the
// launch up to the cursor says its lanes poll; the first held bit; else the table's start.
ZoomFocus zoom_focus(const App& app, const RegionInfo& r, size_t ri, const RegionView* rv,
                     std::initializer_list<Cells> touched) {
  for (const Cells& c : touched)
    if (c.lo < c.hi && c.lo < r.cells) return {c.lo / 32, "the event at the cursor"};
  const Model& m = app.model();
  const std::vector<uint32_t>& reps = m.launch_reports(app.launch());
  for (auto it = reps.rbegin(); it != reps.rend(); ++it) {
    const ReportInfo& rep = m.reports()[*it];
    if (rep.cursor == kNoCursor || rep.cursor > app.cursor() || (rep.kind != "deadlock" && rep.kind != "hang"))
      continue;
    uint64_t bit = 0;
    if (report_names_bit(rep.text, r, app.launch_info(), rv, ri, &bit) && bit < r.cells)
      return {bit / 32, "polled in report " + std::to_string(rep.id)};
  }
  if (rv)
    for (uint64_t i = 0; i < rv->cells.size() && i < r.cells; ++i)
      if (rv->cells[i].value) return {i / 32, "held"};
  return {0, "no bit held"};
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
      "writer; click a held lock to select its owner lane. In lecture mode a lock-bits region of more "
      "than 64 bits also gets a zoomed detail of the words that matter at the cursor, at least 24 px a "
      "bit, framed in yellow, its part of the table outlined in the same yellow.");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Cell size: as wide as the window allows (at most 28 pixels, 48 for the window alone). When
  // the regions then do not all fit the window's height, the ones taller than 2 rows get a
  // smaller cell, the largest at which everything fits (at least 4 pixels; below that the
  // window scrolls), so that a tall lock-bits grid does not push its own rows and the regions
  // below it out of view.
  const float max_cell = app.options.only_window ? 48.0f : 28.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x - 4;
  auto width_cell_in = [&](float w, uint32_t cols) {
    return std::max(3.0f, std::min(std::floor(w / cols) - 1, max_cell));
  };
  auto width_cell = [&](uint32_t cols) { return width_cell_in(avail_w, cols); };
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
  // --lecture: more lock bits than that keep their overview (the cells above) and get a zoomed detail
  // of a few words beside or below it (ZoomGrid); the overview gets the width the detail leaves.
  const float label_h = ImGui::GetTextLineHeightWithSpacing();
  auto zoom_of = [&](const RegionInfo& r, uint32_t rows, uint32_t cols) {
    return zoom_grid(r, rows, cols, avail_w, label_h);
  };
  auto overview_w = [&](const ZoomGrid& z) { return z.on && z.beside ? avail_w - z.width() - kZoomGap : avail_w; };
  // The height of the overview and the detail together (one word in the detail).
  auto with_zoom = [&](const ZoomGrid& z, float grid_h) {
    if (!z.on) return grid_h;
    const float zoom_h = label_h + z.word_height();
    return z.beside ? std::max(grid_h, zoom_h) : grid_h + kZoomGap + zoom_h;
  };
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
        const ZoomGrid z = zoom_of(r, rows, cols);
        float c = width_cell_in(overview_w(z), cols);
        if (rows > 2) c = std::max(std::min(c, cap), min_cell(r));
        h += title_h + (r.shared ? ImGui::GetTextLineHeightWithSpacing() : 0.0f) +
             with_zoom(z, rows * (c + (c >= 8 ? 1.0f : 0.0f)));
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

    const ZoomGrid z = zoom_of(r, rows, cols);
    const float ov_w = overview_w(z);
    const float avail_h = ImGui::GetContentRegionAvail().y - 4 - (z.on && !z.beside ? with_zoom(z, 0) : 0.0f);
    float cell = width_cell_in(ov_w, cols);
    if (shown == 1 && avail_h > 0) cell = std::max(3.0f, std::min(cell, std::floor(avail_h / rows) - 1));
    if (rows > 2) cell = std::min(cell, tall_cap);
    cell = std::max(cell, std::min(min_cell(r), width_cell_in(ov_w, cols)));
    const float gap = cell >= 8 ? 1.0f : 0.0f;
    const float pitch = cell + gap;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const Event& e = s.event;
    const Cells written = written_now(e, r, rv, app.launch_info().warps_per_block);
    const Cells read_old_cells = read_old_now(e, r, app.launch_info(), rv, ri);
    // One cell: element i of the region at a, `size` pixels wide and high; recorded as
    // "locks:REGION:I", or "zoom:REGION:I" in the zoomed detail.
    auto draw_cell = [&](uint64_t i, ImVec2 a, float size, float cell_gap, bool in_zoom) {
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
      const ImVec2 b(a.x + size, a.y + size);
      dl->AddRectFilled(a, b, col(rgb));
      // An array element's value, when it fits in the cell (counts, tickets, "2 inside").
      if (r.kind == RegionKind::Array && size >= 16 && !unwritten) {
        char t[24];
        std::snprintf(t, sizeof t, "%" PRIu64, v);
        const ImVec2 ts = ImGui::CalcTextSize(t);
        if (ts.x <= size - 2 && ts.y <= size)
          dl->AddText(ImVec2(a.x + (size - ts.x) * 0.5f, a.y + (size - ts.y) * 0.5f),
                      v ? IM_COL32(0, 0, 0, 255) : IM_COL32(150, 150, 160, 255), t);
      }
      if (written.has(i) && size >= 6) dl->AddRect(a, b, col(palette::kCellWritten), 0, 0, size >= 12 ? 2.0f : 1.0f);
      const bool buffered = c && c->buffered_cursor != kNoCursor;
      if (buffered && size >= 8) {
        const float in = size >= 16 ? 3.0f : 2.0f;
        dl->AddRect(ImVec2(a.x + in, a.y + in), ImVec2(b.x - in, b.y - in), col(palette::kCellBuffered), 0, 0,
                    size >= 16 ? 2.0f : 1.0f);
      }
      const bool read_old = read_old_cells.has(i);
      if (read_old && size >= 6) dl->AddRect(a, b, col(palette::kCellReadOld), 0, 0, size >= 12 ? 3.0f : 1.0f);
      if (app.recorder.enabled && buffered && !in_zoom)
        app.recorder.add("buffered:" + std::to_string(ri) + ":" + std::to_string(i), a, b, palette::kCellBuffered,
                         "latest write not yet visible to all");
      if (app.recorder.enabled && read_old && !in_zoom)
        app.recorder.add("read-old:" + std::to_string(ri) + ":" + std::to_string(i), a, b, palette::kCellReadOld,
                         "read an older value");
      if (c && c->owner_warp != kNoWarp && app.selection.has(c->owner_warp, c->owner_lane) && size >= 6)
        dl->AddRect(ImVec2(a.x + 2, a.y + 2), ImVec2(b.x - 2, b.y - 2), col(palette::kSelection));
      if (app.recorder.enabled)
        app.recorder.add((in_zoom ? "zoom:" : "locks:") + std::to_string(ri) + ":" + std::to_string(i), a, b, rgb,
                         what);
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, ImVec2(b.x + cell_gap, b.y + cell_gap))) {
        ImGui::BeginTooltip();
        ImGui::Text("%s[%" PRIu64 "]  (row %" PRIu64 ", column %" PRIu64 ")", r.name.c_str(), i, i / cols, i % cols);
        if (r.kind == RegionKind::LockBits) ImGui::Text("word %" PRIu64 ", bit %" PRIu64, i / 32, i % 32);
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
    };
    for (uint32_t row = 0; row < rows; ++row)
      for (uint32_t colm = 0; colm < cols; ++colm) {
        const uint64_t i = uint64_t(row) * cols + colm;
        if (i >= r.cells) break;
        draw_cell(i, ImVec2(p.x + colm * pitch, p.y + row * pitch), cell, gap, false);
      }
    const float grid_w = cols * pitch - gap, grid_h = rows * pitch - gap;
    if (!z.on) {
      ImGui::Dummy(ImVec2(cols * pitch, rows * pitch));
      continue;
    }

    // The zoomed detail: whole words from the one that matters at the cursor, as many as fit beside
    // the overview (up to kMaxZoomWords; one below it), under a label that says which.
    const uint64_t words = (r.cells + 31) / 32;
    uint64_t count = 1;
    if (z.beside && grid_h > label_h + z.word_height())
      count = uint64_t((grid_h - label_h + kZoomWordGap) / z.word_height());
    count = std::min({count, words, kMaxZoomWords});
    const ZoomFocus focus =
        zoom_focus(app, r, ri, rv, {written, read_old_cells, accessed_now(e, r, app.launch_info(), rv, ri)});
    const uint64_t first_word = std::min(focus.word, words - count);
    const uint64_t lo = first_word * 32, hi = std::min<uint64_t>(r.cells, (first_word + count) * 32);  // [lo, hi)
    char label[96];
    if (count == 1)
      std::snprintf(label, sizeof label, "bits %" PRIu64 "-%" PRIu64 " (word %" PRIu64 ")", lo, hi - 1, first_word);
    else
      std::snprintf(label, sizeof label, "bits %" PRIu64 "-%" PRIu64 " (words %" PRIu64 "-%" PRIu64 ")", lo, hi - 1,
                    first_word, first_word + count - 1);
    const ImVec2 o = z.beside ? ImVec2(p.x + grid_w + kZoomGap, p.y) : ImVec2(p.x, p.y + grid_h + kZoomGap);
    dl->AddText(o, ImGui::GetColorU32(ImGuiCol_Text), label);
    const ImVec2 label_size = ImGui::CalcTextSize(label);
    if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(o, ImVec2(o.x + label_size.x, o.y + label_size.y)))
      ImGui::SetTooltip(
          "Lecture mode: these bits at least %.0f px (the table has %" PRIu64
          " bits: too many to draw that large). Shown: %s. The detail starts at the word the event at the "
          "cursor touched, else the word a hang or deadlock report up to the cursor says its lanes poll, else "
          "the first word with a held bit, else the first word; its part of the table is outlined.",
          double(lecture::kMinLockCell), r.cells, focus.why.c_str());
    const ImVec2 g(o.x, o.y + label_h);  // the detail's grid
    for (uint64_t i = lo; i < hi; ++i) {
      const uint64_t j = i - lo;
      const ImVec2 d = z.at(j);
      draw_cell(i, ImVec2(g.x + d.x, g.y + d.y), z.cell, 1.0f, true);
    }
    const float zoom_grid_h = z.at(hi - 1 - lo).y + z.cell;
    const ImVec2 f0(g.x - 2, g.y - 2), f1(g.x + z.width() + 2, g.y + zoom_grid_h + 2);
    const ImU32 frame = col(palette::kZoomFrame);
    dl->AddRect(f0, f1, frame, 0, 0, 2.0f);
    // The same words in the overview: one outline around whole rows, else one per row.
    const uint64_t row_lo = lo / cols, row_hi = (hi - 1) / cols;
    const bool whole_rows = lo % cols == 0 && (hi % cols == 0 || hi == r.cells);
    ImVec2 ob0(p.x + grid_w, p.y + grid_h), ob1(p.x, p.y);  // the outline's bounds
    for (uint64_t row = row_lo; row <= row_hi; ++row) {
      const uint64_t c0 = whole_rows || row > row_lo ? 0 : lo % cols;
      const uint64_t c1 = whole_rows ? cols - 1 : (row < row_hi ? cols - 1 : (hi - 1) % cols);
      const ImVec2 a(p.x + c0 * pitch - 2, p.y + row * pitch - 2),
          b(p.x + c1 * pitch + cell + 2, p.y + row * pitch + cell + 2);
      ob0 = ImVec2(std::min(ob0.x, a.x), std::min(ob0.y, a.y));
      ob1 = ImVec2(std::max(ob1.x, b.x), std::max(ob1.y, b.y));
      if (!whole_rows) dl->AddRect(a, b, frame, 0, 0, 2.0f);
    }
    if (whole_rows) dl->AddRect(ob0, ob1, frame, 0, 0, 2.0f);
    if (z.beside) {  // lines from the outline to the detail
      dl->AddLine(ImVec2(ob1.x, ob0.y), f0, frame, 1.0f);
      dl->AddLine(ob1, ImVec2(f0.x, f1.y), frame, 1.0f);
    }
    if (app.recorder.enabled) {
      app.recorder.add("zoom:" + std::to_string(ri), f0, f1, palette::kZoomFrame,
                       (std::string(label) + ": " + focus.why).c_str());
      app.recorder.add("zoom-outline:" + std::to_string(ri), ob0, ob1, palette::kZoomFrame, label);
    }
    const float zoom_h = label_h + zoom_grid_h + 3;
    if (z.beside)
      ImGui::Dummy(ImVec2(grid_w + kZoomGap + z.width(), std::max(rows * pitch, zoom_h)));
    else
      ImGui::Dummy(ImVec2(std::max(cols * pitch, z.width()), grid_h + kZoomGap + zoom_h));
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
