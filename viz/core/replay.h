// Internal to synclab_viz_core: the replay state of one launch (what the model knows after some
// prefix of the launch's events) and how one event changes it. Stored as copy-on-write chunks so
// that checkpoints share everything that did not change between them.
#pragma once

#include <synclab/trace_format.h>

#include "viz/core/model.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace synclab::viz::detail {

constexpr uint32_t kNone = ~0u;  // "no cursor" inside the replay state (cursors fit 32 bits)
constexpr unsigned kChunkShift = 5;
constexpr size_t kChunk = size_t(1) << kChunkShift;

// An array of T in chunks of kChunk, shared between copies until one of them writes.
template <class T>
struct Cow {
  struct Chunk {
    T v[kChunk];
  };
  std::vector<std::shared_ptr<Chunk>> chunks;
  uint64_t n = 0;

  void init(uint64_t count, const std::shared_ptr<Chunk>& zero) {
    n = count;
    chunks.assign(size_t((count + kChunk - 1) >> kChunkShift), zero);
  }
  const T& get(uint64_t i) const { return chunks[size_t(i >> kChunkShift)]->v[i & (kChunk - 1)]; }
  // A writable element; clones its chunk when another copy shares it (adds to *cloned).
  T& mut(uint64_t i, size_t* cloned) {
    std::shared_ptr<Chunk>& c = chunks[size_t(i >> kChunkShift)];
    if (c.use_count() != 1) {
      c = std::make_shared<Chunk>(*c);
      *cloned += sizeof(Chunk) + 32;  // the chunk and its control block
    }
    return c->v[i & (kChunk - 1)];
  }
  size_t table_bytes() const { return chunks.size() * sizeof(std::shared_ptr<Chunk>); }
};

struct WarpRS {
  uint32_t started = 0;  // lanes named by any WarpStep / BarrierArrive / LaneExit so far
  uint32_t exited = 0;
  uint32_t at_barrier = 0;
  uint32_t barrier = 0;         // barrier id of the at_barrier lanes
  uint32_t last_step = kNone;   // cursor of the warp's last WarpStep
  uint32_t last_event = kNone;  // cursor of the warp's last event (not counting BarrierRelease)
  uint32_t stale = 0;           // lanes whose current instruction read an older value (MemoryModel)
};

struct CellRS {
  uint64_t value = 0;
  uint32_t writer = kNone;      // cursor of the last update that wrote the cell
  uint32_t owner = kNone;       // lock-bits: cursor of the update that set it 0 -> 1
  uint32_t completion = kNone;  // cursor of the cell's first update
  uint32_t buffered = kNone;    // cursor of the MemoryModel Buffered event of its latest write, while
                                // older values may still be read (kNone: visible to all)
};

struct Zero {
  std::shared_ptr<Cow<WarpRS>::Chunk> warps = std::make_shared<Cow<WarpRS>::Chunk>();
  std::shared_ptr<Cow<CellRS>::Chunk> cells = std::make_shared<Cow<CellRS>::Chunk>();
};

struct ReplayState {
  Cow<WarpRS> warps;
  std::vector<Cow<CellRS>> regions;  // one per Model region, same order
  uint64_t applied = 0;              // events of the launch applied so far
};

struct Checkpoint {
  uint64_t applied = 0;
  ReplayState state;
};

// What replay needs to know about a launch.
struct LaunchCtx {
  uint32_t warps = 0;
  uint32_t warps_per_block = 1;
  int16_t region_index[256];           // region id -> index into Model regions, -1: none
  std::vector<uint64_t> region_cells;  // per region index
  std::vector<bool> region_bits;       // lock-bits?
  // Where each region lies (MemoryModel events name addresses): its first byte, bytes, and bytes
  // per element (0: lock-bits).
  std::vector<uint64_t> region_base, region_bytes;
  std::vector<uint32_t> region_elem_bytes;
  // Shared regions: one copy of region_block_cells[r] cells per block (region_cells[r] is their
  // total); region_base[r] is then the offset in a block's shared memory.
  std::vector<bool> region_shared;
  std::vector<uint64_t> region_block_cells;
  uint64_t blocks = 0;
};

// Where the copy of region r that event e (by its warp's block) changes starts in the region's
// cells, and how many cells one copy has: 0 and region_cells[r] for a global region. False when
// the warp's block is outside the launch.
inline bool block_copy(const LaunchCtx& C, size_t r, uint32_t warp, uint64_t* base, uint64_t* n) {
  if (!C.region_shared[r]) {
    *base = 0;
    *n = C.region_cells[r];
    return true;
  }
  const uint64_t block = block_of_warp(warp, C.warps_per_block);
  if (block >= C.blocks) return false;
  *n = C.region_block_cells[r];
  *base = block * *n;
  return true;
}

// Filled by apply() for the model's navigation marks.
struct Marks {
  bool acquire = false;  // a lock bit went 0 -> 1
  bool release = false;  // a lock bit went 1 -> 0
};

// The region cells [*first, *last) at the global address of a MemoryModel event (false: none).
inline bool region_cells_at(const LaunchCtx& C, const trace::Event& e, size_t* region, uint64_t* first,
                            uint64_t* last) {
  const auto space = trace::MemSpace((e.aux >> trace::kMemoryModelSpaceShift) & trace::kAuxSpaceMask);
  const bool shared = space == trace::MemSpace::Shared;
  if (space != trace::MemSpace::Global && space != trace::MemSpace::HostMapped && !shared) return false;
  const uint64_t size = uint64_t(1) << ((e.aux >> trace::kMemoryModelSizeShift) & 7);
  for (size_t r = 0; r < C.region_base.size(); ++r) {
    if (shared != bool(C.region_shared[r]) || C.region_cells[r] == 0) continue;
    if (e.a < C.region_base[r] || e.a - C.region_base[r] >= C.region_bytes[r]) continue;
    uint64_t base = 0, n = 0;
    if (!block_copy(C, r, e.warp, &base, &n)) return false;
    const uint64_t off = e.a - C.region_base[r];
    if (C.region_elem_bytes[r] == 0) {  // lock-bits: the bits of the bytes written
      *first = off * 8;
      *last = (off + size) * 8;
    } else {
      *first = off / C.region_elem_bytes[r];
      *last = *first + 1;
    }
    *last = std::min<uint64_t>(*last, n);
    if (*first >= *last) return false;
    *first += base;
    *last += base;
    *region = r;
    return true;
  }
  return false;
}

// A MemoryModel event (docs/trace-format.md): the lanes that read an older value; the cells whose
// latest write is buffered (not yet visible to all), became visible, or went early in coherence
// order (memory kept b).
inline void apply_memory_model(const LaunchCtx& C, const trace::Event& e, uint32_t c, ReplayState* rs, size_t* cloned) {
  using trace::MemoryModelKind;
  const auto k = MemoryModelKind(e.aux & trace::kMemoryModelKindMask);
  if (k == MemoryModelKind::StaleRead && e.lane < 32) rs->warps.mut(e.warp, cloned).stale |= 1u << e.lane;
  if (k != MemoryModelKind::Buffered && k != MemoryModelKind::Visible && k != MemoryModelKind::EarlyStore) return;
  size_t r = 0;
  uint64_t first = 0, last = 0;
  if (!region_cells_at(C, e, &r, &first, &last)) return;
  Cow<CellRS>& cells = rs->regions[r];
  for (uint64_t i = first; i < last; ++i) {
    if (k == MemoryModelKind::Visible) {
      if (cells.get(i).buffered != kNone) cells.mut(i, cloned).buffered = kNone;
    } else if (k == MemoryModelKind::Buffered) {
      cells.mut(i, cloned).buffered = c;
    } else {  // EarlyStore: its RegionUpdate gave the stored value; memory kept b, and the early
              // value is now an older one that some threads may still read
      const uint64_t v = C.region_elem_bytes[r] == 0 ? (e.b >> (i - first)) & 1u : e.b;
      CellRS& x = cells.mut(i, cloned);
      if (C.region_bits[r] && x.value == 1 && v == 0) x.owner = kNone;
      x.value = v;
      x.buffered = c;
    }
  }
}

// A HostAccess event is well formed when it is a read or a write of 1 to 8 bytes to global or
// host-mapped memory.
inline bool host_access_ok(const trace::Event& e) { return trace::host_access_well_formed(e); }

// The global region a HostAccess falls in (its first byte) and the cells [*first, *last) its
// bytes cover (false: none). Lock-bits: the bits of the bytes written; other kinds: the elements
// the bytes overlap.
inline bool host_cells_at(const LaunchCtx& C, const trace::Event& e, size_t* region, uint64_t* first, uint64_t* last) {
  const uint64_t size = uint64_t(1) << ((e.aux >> trace::kAuxSizeShift) & 7);
  for (size_t r = 0; r < C.region_base.size(); ++r) {
    if (C.region_shared[r] || C.region_cells[r] == 0) continue;
    if (e.a < C.region_base[r] || e.a - C.region_base[r] >= C.region_bytes[r]) continue;
    const uint64_t off = e.a - C.region_base[r];
    const uint64_t end = std::min<uint64_t>(off + size, C.region_bytes[r]);
    if (C.region_elem_bytes[r] == 0) {
      *first = off * 8;
      *last = end * 8;
    } else {
      *first = off / C.region_elem_bytes[r];
      *last = (end + C.region_elem_bytes[r] - 1) / C.region_elem_bytes[r];
    }
    *last = std::min<uint64_t>(*last, C.region_cells[r]);
    if (*first >= *last) return false;
    *region = r;
    return true;
  }
  return false;
}

// A host write: the cells it covers get their bytes of its value (an element wider than the
// write keeps its other bytes), the host as writer, no holder for a lock bit it sets. A host read
// changes nothing.
inline bool apply_host(const LaunchCtx& C, const trace::Event& e, uint32_t c, ReplayState* rs, size_t* cloned,
                       Marks* marks) {
  if (!host_access_ok(e)) return false;
  if (!(e.aux & trace::kAuxWrite)) return true;
  size_t r = 0;
  uint64_t first = 0, last = 0;
  if (!host_cells_at(C, e, &r, &first, &last)) return true;  // outside the regions: nothing to draw
  Cow<CellRS>& cells = rs->regions[r];
  const uint64_t off = e.a - C.region_base[r];
  const uint32_t eb = C.region_elem_bytes[r];
  const uint64_t size = uint64_t(1) << ((e.aux >> trace::kAuxSizeShift) & 7);
  for (uint64_t i = first; i < last; ++i) {
    CellRS& x = cells.mut(i, cloned);
    if (eb == 0) {
      const uint64_t v = (e.b >> (i - off * 8)) & 1u;
      if (x.value == 1 && v == 0 && x.owner != kNone) {
        x.owner = kNone;
        if (marks) marks->release = true;
      }
      x.value = v;
    } else {
      // the bytes of element i this write covers, at their place in the element
      const uint64_t e0 = i * eb, lo = std::max<uint64_t>(e0, off), hi = std::min<uint64_t>(e0 + eb, off + size);
      uint64_t v = x.value;
      for (uint64_t p = lo; p < hi && p - e0 < 8; ++p) {
        const uint64_t byte = (e.b >> (8 * (p - off))) & 0xffu;
        v = (v & ~(0xffull << (8 * (p - e0)))) | (byte << (8 * (p - e0)));
      }
      x.value = v;
    }
    x.writer = c;
    x.buffered = kNone;
    if (x.completion == kNone) x.completion = c;
  }
  return true;
}

inline void init_state(const LaunchCtx& C, const Zero& z, ReplayState* rs) {
  rs->warps.init(C.warps, z.warps);
  rs->regions.resize(C.region_cells.size());
  for (size_t r = 0; r < C.region_cells.size(); ++r) rs->regions[r].init(C.region_cells[r], z.cells);
  rs->applied = 0;
}

inline size_t table_bytes(const ReplayState& rs) {
  size_t b = sizeof(ReplayState) + rs.warps.table_bytes();
  for (const auto& r : rs.regions) b += sizeof(r) + r.table_bytes();
  return b;
}

// A RegionUpdate with kRegionSnapshot: the region's contents when the launch began. It sets the
// values only: no writer, owner or completion (nobody in this launch wrote them), and no warp.
inline bool apply_snapshot(const LaunchCtx& C, const trace::Event& e, ReplayState* rs, size_t* cloned) {
  const int ri = C.region_index[e.aux & trace::kRegionIdMask];
  if (ri < 0 || C.region_shared[size_t(ri)]) return false;  // shared memory starts unwritten
  Cow<CellRS>& cells = rs->regions[size_t(ri)];
  const uint64_t n = cells.n;
  if (e.a >= n) return false;
  const unsigned nbytes = (e.aux & trace::kRegionBytesMask) >> trace::kRegionBytesShift;
  if (nbytes == 0 || !C.region_bits[size_t(ri)]) {
    cells.mut(e.a, cloned).value = C.region_bits[size_t(ri)] ? (e.b ? 1 : 0) : e.b;
    return true;
  }
  const unsigned bits = 8 * std::min(nbytes, 8u);
  for (unsigned k = 0; k < bits && e.a + k < n; ++k) {
    const uint64_t v = (e.b >> k) & 1u;
    if (cells.get(e.a + k).value != v) cells.mut(e.a + k, cloned).value = v;
  }
  return true;
}

// Applies event e (launch cursor c) to *rs. Returns false when the event names a warp, block or
// region element the launch does not have (it is then skipped, in part or whole).
inline bool apply(const LaunchCtx& C, const trace::Event& e, uint32_t c, ReplayState* rs, size_t* cloned,
                  Marks* marks) {
  using trace::EventKind;
  rs->applied = uint64_t(c) + 1;
  const EventKind kind = static_cast<EventKind>(e.kind);
  if (kind == EventKind::KernelBegin || kind == EventKind::KernelEnd) return true;
  if (kind == EventKind::BarrierRelease) {
    // every warp of block b waiting at barrier aux
    const uint64_t wpb = C.warps_per_block ? C.warps_per_block : 1;
    if (e.b >= (uint64_t(C.warps) + wpb - 1) / wpb) return false;
    const uint64_t w0 = e.b * wpb;
    const uint64_t w1 = std::min<uint64_t>(w0 + wpb, C.warps);
    for (uint64_t w = w0; w < w1; ++w) {
      const WarpRS& r = rs->warps.get(w);
      if (r.at_barrier && r.barrier == e.aux) {
        WarpRS& m = rs->warps.mut(w, cloned);
        m.at_barrier = 0;
      }
    }
    return true;  // its warp is the block's first warp, which did not necessarily do anything
  }
  if (kind == EventKind::RegionUpdate && (e.aux & trace::kRegionSnapshot)) return apply_snapshot(C, e, rs, cloned);
  if (kind == EventKind::HostAccess) return apply_host(C, e, c, rs, cloned, marks);  // no warp's
  if (e.warp >= C.warps) return false;
  bool ok = true;
  switch (kind) {
    case EventKind::WarpStep: {
      WarpRS& w = rs->warps.mut(e.warp, cloned);
      w.started |= uint32_t(e.a);
      w.last_step = c;
      w.last_event = c;
      w.stale = 0;
      return true;
    }
    case EventKind::MemoryModel: apply_memory_model(C, e, c, rs, cloned); break;
    case EventKind::BarrierArrive: {
      WarpRS& w = rs->warps.mut(e.warp, cloned);
      w.started |= uint32_t(e.a);
      w.at_barrier |= uint32_t(e.a);
      w.barrier = e.aux;
      w.last_event = c;
      return true;
    }
    case EventKind::LaneExit: {
      WarpRS& w = rs->warps.mut(e.warp, cloned);
      w.started |= uint32_t(e.a);
      w.exited |= uint32_t(e.a);
      w.at_barrier &= ~uint32_t(e.a);
      w.last_event = c;
      return true;
    }
    case EventKind::RegionUpdate: {
      const int ri = C.region_index[e.aux & trace::kRegionIdMask];
      if (ri < 0) {
        ok = false;
        break;
      }
      Cow<CellRS>& cells = rs->regions[size_t(ri)];
      uint64_t base = 0, n = 0;  // the cells of the writer's block's copy (shared regions)
      if (!block_copy(C, size_t(ri), e.warp, &base, &n) || base + n > cells.n) {
        ok = false;
        break;
      }
      const unsigned nbytes = (e.aux & trace::kRegionBytesMask) >> trace::kRegionBytesShift;
      auto write = [&](uint64_t i, uint64_t v) {
        CellRS& x = cells.mut(base + i, cloned);
        if (C.region_bits[size_t(ri)]) {
          v = v ? 1 : 0;
          if (x.value == 0 && v == 1) {
            x.owner = c;
            if (marks) marks->acquire = true;
          } else if (x.value == 1 && v == 0) {
            x.owner = kNone;
            if (marks) marks->release = true;
          }
        }
        x.value = v;
        x.writer = c;
        x.buffered = kNone;  // a Buffered event right after says when it is not visible to all
        if (x.completion == kNone) x.completion = c;
      };
      if (nbytes == 0 || !C.region_bits[size_t(ri)]) {
        if (e.a < n)
          write(e.a, e.b);
        else
          ok = false;
      } else {
        // whole bytes of a lock-bits region: a = first bit, bit k of b = element a + k
        const unsigned bits = 8 * std::min(nbytes, 8u);
        if (e.a >= n) {
          ok = false;
        } else {
          for (unsigned k = 0; k < bits && e.a + k < n; ++k) write(e.a + k, (e.b >> k) & 1u);
        }
      }
      break;
    }
    default: break;
  }
  rs->warps.mut(e.warp, cloned).last_event = c;
  return ok;
}

}  // namespace synclab::viz::detail
