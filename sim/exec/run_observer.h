// A listener of a kernel run: something that hears what the run does without steering it. Every
// listener is one: the progress detector (hang_detector.h, in every run), the race checker, the
// init checker and the sync checker (sim/check/), the trace recorder (trace_recorder.h) and the
// performance counters (perf_counters.h). The run holds them in one ObserverList
// (observer_list.h) and calls the list at fixed points of the code paths it takes anyway, so a
// watched run executes exactly what an unwatched one does: the same instruction paths (row forms and
// fast paths included), the same scheduling. Calls come in the order things happen: a warp step
// first, then what its instruction does (accesses, atomics, fences, barrier arrivals and releases,
// warp synchronization, exits), then the reports it raised. A listener reads the run through
// RunView (run_view.h); what it may write of the run's state is its own: the race checker's
// per-block slot (Cta::race, set up at cta_start), the sync checker's note of where a barrier's
// phase waits (BarrierArrival::state), the init checker's record of written device memory. Every
// event has an empty default: a listener overrides what it hears, and says in events() which of the
// frequent ones (steps, accesses) it wants at all.
#pragma once

#include <synclab/trace_format.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/exec/report.h"
#include "sim/exec/simulator.h"
#include "sim/exec/warp.h"
#include "sim/exec/warp_model.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

// A barrier arrival as the checkers see it: the instruction, its thread count operand (0: the
// whole block), the phase's state (the sync checker notes where its first arrival waits), and
// whether the launch's warp model is lockstep (where lanes on another path cannot arrive at all).
struct BarrierArrival {
  const ptx::Instr& instr;
  int first;       // the first arriving lane
  uint32_t count;  // bar.sync a, b: b (0 when absent)
  BarrierState& state;
  bool lockstep;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;

  // The frequent events a listener hears (events()); the others reach every listener.
  static constexpr unsigned kSteps = 1, kAccesses = 2;
  virtual unsigned events() const { return kSteps | kAccesses; }

  virtual void launch_begin() {}
  // A block starts on an SM (a listener may set up its slot, Cta::race) and ends.
  virtual void cta_start(Cta&) {}
  virtual void cta_end(const Cta&) {}
  // Group g of warp w is about to execute its instruction (kSteps).
  virtual void step(const Warp&, const Group&) {}

  // A load (write false) or store of `size` bytes at a shared or global generic address
  // (kAccesses); value: the bytes read or written (the low `size` bytes).
  virtual void access(const Warp&, int /*lane*/, uint64_t /*generic*/, uint32_t /*size*/, bool /*write*/,
                      uint64_t /*value*/, const ptx::Instr&) {}
  // The same for the active lanes of one row-form ld/st (kAccesses): lane l at X[l] + gen_off with
  // value V[l]. By default, access() for each lane in lane order.
  virtual void rows(const Warp& w, uint32_t act, const uint64_t* X, uint64_t gen_off, uint32_t size, bool write,
                    const ptx::Instr& I, const uint64_t* V) {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      access(w, l, X[l] + gen_off, size, write, V[l], I);
    }
  }
  // A wait on an mbarrier read its word (value); complete: it found its phase complete (an
  // incomplete wait acquires nothing). By default, a load.
  virtual void mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t value, bool /*complete*/,
                             const ptx::Instr& I) {
    access(w, lane, generic, 8, false, value, I);
  }
  // A read-modify-write (atom, red, an mbarrier arrival, an asynchronous copy's arrival) is about
  // to read `size` bytes at `generic` (the checkers' view of its read half).
  virtual void atomic_read(const Warp&, int /*lane*/, uint64_t /*generic*/, uint32_t /*size*/, const ptx::Instr&) {}
  // It wrote (not a compare-and-swap that failed): the checkers' view of its write half.
  virtual void atomic_wrote(const Warp&, int /*lane*/, uint64_t /*generic*/, const ptx::Instr&) {}
  // What it did: old and new are the word's values before and after.
  virtual void atomic(const Warp&, int /*lane*/, uint64_t /*generic*/, uint32_t /*size*/, uint64_t /*old*/,
                      uint64_t /*nw*/, const ptx::Instr&) {}
  // Lanes `act` of warp w executed the fence (or membar) I.
  virtual void fence(const Warp&, uint32_t /*act*/, const ptx::Instr&) {}
  // Lanes `act` of a store are about to write; two or more of them write the same bytes, at
  // `generic` (`bytes` each): only one lane's value survives. values: what each lane stores (null
  // when the store is not of one scalar).
  virtual void store_collision(const Warp&, const ptx::Instr&, uint64_t /*generic*/, uint32_t /*bytes*/,
                               uint32_t /*writers*/, const uint64_t* /*values*/) {}

  // Host-visible memory (mapped, managed): before a device access to it, and the access itself
  // (`p` the word's memory; read: what a load or read-modify-write read; left: what a store or
  // read-modify-write left there).
  virtual void host_look() {}
  virtual void host_access(const Warp&, int /*lane*/, uint64_t /*generic*/, uint32_t /*size*/, const uint8_t* /*p*/,
                           bool /*write*/, bool /*atomic*/, const ptx::Instr&, const uint64_t* /*read*/,
                           const uint64_t* /*left*/) {}

  // Lanes `lanes` of warp w arrived at block barrier `id`.
  virtual void barrier_arrive(const Warp&, uint32_t /*id*/, uint32_t /*lanes*/, const BarrierArrival&) {}
  // Barrier `id` of block c released the `arrived` threads that waited; waiters: their threads
  // (linear in the block), warp by warp.
  virtual void barrier_release(const Cta&, uint32_t /*id*/, uint32_t /*arrived*/,
                               const std::vector<uint32_t>& /*waiters*/) {}
  // Lanes `lanes` of warp w met at a __syncwarp() (or a shuffle, which orders as it does here).
  virtual void warp_sync(const Warp&, uint32_t /*lanes*/) {}
  // Lane `lane` executes the warp-synchronous instruction I with member mask `member`; `here`: the
  // lanes that have arrived at it.
  virtual void member_mask(const Warp&, int /*lane*/, uint32_t /*member*/, uint32_t /*here*/, const ptx::Instr&,
                           bool /*lockstep*/) {}
  // A shfl.sync whose lane reads `source`, which is not in `member` and the lanes executing it.
  virtual void shfl_outside(const Warp&, int /*lane*/, const ptx::Instr&, int /*source*/, uint32_t /*member*/) {}
  virtual void lanes_exited(const Warp&, uint32_t /*lanes*/) {}
  // Lanes `lanes` of warp w, which waited at a warp-synchronous instruction for lanes that had not
  // arrived, go on (lanes that arrive together and go on at once are not among them).
  virtual void warp_sync_resumed(const Warp&, uint32_t /*lanes*/) {}

  // What the relaxed memory model did (trace::MemoryModelKind), right after the access it is
  // about: lane -1 for a whole-warp event (LateLoad: a is the lanes' mask).
  // size: the access's bytes (0 for LateLoad).
  virtual void memory_model(const Warp&, int /*lane*/, trace::MemoryModelKind, uint64_t /*a*/, uint64_t /*b*/,
                            uint32_t /*size*/) {}
  // The newest write of the memory model's location `key` (location_key) became the only value any
  // thread can read.
  virtual void memory_visible(uint64_t /*key*/) {}

  // A report of the launch (raised by the run or by a listener).
  virtual void report(const Report&) {}
  // The step loop ended: a checker completes its reports (before the listeners hear them).
  virtual void finish_reports() {}
  // What the launch's summary line counts (the checkers' reports).
  struct Counts {
    uint64_t race_errors = 0, race_warnings = 0, sync_errors = 0, init_reads = 0;
    uint64_t more = 0;  // repeats of reported races not shown
  };
  virtual void count(Counts&) const {}
  virtual void launch_end(LaunchStatus) {}
};

}  // namespace synclab::sim
