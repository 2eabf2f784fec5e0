// The trace recorder: a listener of a kernel run (run_observer.h) that writes what it sees into
// the trace file (SYNCLAB_TRACE; the format is docs/trace-format.md). One per traced launch.
#pragma once

#include <synclab/trace_format.h>
#include <synclab/trace_writer.h>

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/exec/host_watch.h"
#include "sim/exec/run_observer.h"
#include "sim/exec/run_view.h"
#include "sim/exec/simulator.h"

namespace synclab::sim {

class TraceRecorder final : public RunObserver {
 public:
  // run: the launch, read through its view (run_view.h); sim: the simulator that runs it (its
  // regions, memory and modules, and the launch's number).
  TraceRecorder(const RunView& run, Simulator& sim, trace::Writer& writer);
  ~TraceRecorder() override;
  void launch_begin() override;
  void step(const Warp& w, const Group& g) override;
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) override;
  void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
              const ptx::Instr& I) override;
  void memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b,
                    uint32_t size) override;
  void memory_visible(uint64_t key) override;
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival&) override;
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived, const std::vector<uint32_t>&) override;
  void lanes_exited(const Warp& w, uint32_t lanes) override;
  void report(const Report& r) override;
  void launch_end(LaunchStatus status) override;

 private:
  // A region named through synclab_region, as this launch sees it.
  struct TraceRegion {
    uint64_t base, end, elem_bytes;
    uint32_t id;
    bool bits;
  };
  // A __shared__ array named through synclab_region_shared, where this launch has it: offsets
  // in each block's shared memory.
  struct TraceShared {
    uint64_t off, end, elem_bytes;
    uint32_t id;
    bool bits;
  };
  // A named region in memory the host may use while the kernel runs (mapped pinned memory,
  // cudaHostRegister'ed memory, managed memory): the simulator does not see the host's loads and
  // stores. Where it can, the host watch (host_watch.h) notes every host access to the regions of
  // allocations the simulator made; the recorder collects the notes at every warp step. Otherwise
  // (cudaHostRegister'ed memory, no protection keys) it compares the region with a copy of what it
  // last saw at every warp step and records a HostAccess write for each element that changed when
  // no device write explains it: the host's writes, but not its reads.
  struct HostRegion {
    uint64_t base, bytes;
    uint32_t grain;  // bytes compared and recorded at a time: the element size (1, 2, 4 or 8)
    trace::MemSpace space;
    bool aligned;                // base is a multiple of grain (the quick check below applies)
    std::vector<uint64_t> seen;  // each grain's contents at the last look
    bool watched = false;        // the host watch notes its accesses (no change detection)
  };
  void watch_host_regions();
  void host_access(uint64_t addr, uint32_t grain, trace::MemSpace space, bool write, uint64_t value);
  void emit_host_notes(uint64_t upto);
  // Before a device access's event: the host accesses that happened before the device thread made
  // it (host_watch::DeviceAccess), so that the trace shows them first.
  void host_notes_before_access() {
    const uint64_t upto = host_watch::notes_before_device_access();
    if (upto > host_watch::notes_drained()) emit_host_notes(upto);
  }
  bool host_watched_ = false;  // this launch started the host watch
  std::vector<host_watch::Access> host_notes_;
  uint64_t host_notes_lost_ = 0;
  void look_for_host_writes();
  void device_wrote(uint64_t generic, uint32_t size);
  void snapshot();  // the regions' contents as the launch begins
  void shared_update(const Warp& w, int lane, uint64_t off, uint32_t size, uint64_t value);
  void region_update(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t value);
  void simple(uint32_t warp, trace::EventKind kind, uint8_t lane, uint16_t aux, uint64_t a, uint64_t b);
  uint32_t warp_id(const Warp& w) const;  // the warp's number in the trace

  // Regions found without annotations (auto_regions.cpp): the words a run uses as locks or flags
  // (targets of atom.cas / atom.exch, words a lane polls, words a hang report names) become
  // regions of the trace, unless a region already covers them.
  void auto_scan_shared();  // launch_begin: __shared__ variables the kernel's cas/exch name
  void auto_atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
                   const ptx::Instr& I) {
    if (I.aop == ptx::AtomOp::Cas || I.aop == ptx::AtomOp::Exch) {
      auto_wrote(w, lane);
      // A spinning atomicCAS comes back to the same word: a direct-mapped memory of the words
      // looked at spares the set lookup.
      uint64_t& last = auto_seen_fast_[(generic >> 2) & (kAutoSeenSlots - 1)];
      if (last != generic) {
        last = generic;
        if (auto_seen_.count(generic) == 0) auto_found(generic, size, /*lock=*/true, old);
      }
    } else if (old == nw) {
      auto_load(w, lane, generic, size, old, I);  // reads the word and leaves it: a poll if repeated
    } else {
      auto_wrote(w, lane);
    }
  }
  // A load of the thread (or an atomic that left the word as it was): one more poll of the word
  // when its last access was the same load, reading the same value.
  void auto_load(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t value, const ptx::Instr& I) {
    const uint64_t thread = thread_of(w, lane);
    PollSlot& p = auto_polls_[poll_slot(thread)];
    if (p.instr == &I && p.addr == generic && p.value == value && p.thread == uint32_t(thread) && p.count) {
      if (++p.count == kAutoPolls) auto_polled(generic, size, value);
      return;
    }
    p.instr = &I;
    p.thread = uint32_t(thread);
    p.addr = generic;
    p.value = value;
    p.count = 1;
  }
  void auto_polled(uint64_t generic, uint32_t size, uint64_t value);
  void auto_wrote(const Warp& w, int lane) { auto_polls_[thread_slot(w, lane)].count = 0; }
  void auto_report(const Report& r);
  // A word found: lock (cas/exch target: "lock-bits") or a polled flag ("flags"); before: its
  // value before the access that found it.
  void auto_found(uint64_t generic, uint32_t size, bool lock, uint64_t before);
  void auto_found_shared(uint64_t off, uint32_t size, bool lock);
  void auto_snapshot(const TraceRegion& r, uint64_t word, uint32_t size, uint64_t before);
  // Region r's contents `mem` (r.end - r.base bytes) as snapshot RegionUpdates at `time`.
  void emit_snapshot(const TraceRegion& r, const uint8_t* mem, uint64_t time);
  // A thread of the launch (the warp's dispatch number, not its number in the trace: one load).
  static uint64_t thread_of(const Warp& w, int lane) { return uint64_t(w.global_index) * 32 + uint64_t(lane); }
  // Hashed, so that the threads that poll (often lane 0 of each block's first warp) spread over the table.
  static size_t poll_slot(uint64_t thread) { return size_t((thread * 0x9E3779B97F4A7C15ull) >> 52); }
  static size_t thread_slot(const Warp& w, int lane) { return poll_slot(thread_of(w, lane)); }
  // Words already looked at in this launch (global addresses; shared: kSharedWindow + offset).
  std::unordered_set<uint64_t> auto_seen_;
  static constexpr size_t kAutoSeenSlots = 256;
  uint64_t auto_seen_fast_[kAutoSeenSlots] = {};
  // Poll detection: per thread (a direct-mapped table), its last memory access when that was a
  // load: the instruction, the word and the value read, and how many times in a row it was the
  // same. A store or a changing atomic of the thread clears it. kAutoPolls loads in a row of one
  // word at one instruction reading one value find the word (a flag the thread polls).
  static constexpr size_t kAutoPollSlots = 1 << 12;  // poll_slot gives 12 bits
  static constexpr uint32_t kAutoPolls = 3;
  struct PollSlot {
    const ptx::Instr* instr = nullptr;
    uint64_t addr = 0, value = 0;
    uint32_t thread = ~0u;  // the thread's low 32 bits (with the hashed slot, enough to tell threads apart)
    uint32_t count = 0;
  };
  std::vector<PollSlot> auto_polls_;

  const RunView& run_;
  Simulator& sim_;
  trace::Writer* tw_;
  uint64_t launch_index_ = 0;
  std::vector<TraceRegion> tregions_;
  std::vector<TraceShared> tshared_;
  std::vector<HostRegion> host_regions_;
  // Device writes into host regions since the last look ([lo, hi) address ranges): a changed
  // element they cover is the device's, not the host's.
  std::vector<std::pair<uint64_t, uint64_t>> device_wrote_;
  // The latest Buffered event of each memory-model location (KernelRun::mm_key), until it is
  // visible to all.
  struct BufferedWrite {
    uint32_t warp;
    uint8_t lane;
    uint16_t aux;  // space and size
    uint64_t a, value;
  };
  std::unordered_map<uint64_t, BufferedWrite> buffered_;
};

}  // namespace synclab::sim
