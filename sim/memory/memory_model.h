// The memory model of a launch (SYNCLAB_MEMORY): what each load reads, where each store goes in
// coherence order, and what fences, barriers and warp synchronization order. The interpreter
// (sim/exec) calls it for every shared or global access; two implementations stand behind it:
//   sc        sequential consistency: every load reads memory's newest value (sc_model.h)
//   relaxed   the PTX memory model, operationally (relaxed/relaxed_model.h)
// Beside them, oracle/ holds the PTX model's axioms, which check what `relaxed` does
// (SYNCLAB_MEMORY_CHECK=1, docs/memory-model.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/ptx/ir.h"

namespace synclab::memory {
struct Execution;
}

namespace synclab::sim {

// The thread an access comes from. id: its number in the launch (block * threads per block +
// thread index; under the lockstep warp model, where a warp's lanes run in lockstep, its warp's
// first thread); cta: its block. The host (a CPU thread touching mapped memory) is one thread
// of its own, outside every block.
struct MemThread {
  uint64_t id = 0;
  uint64_t cta = 0;
  bool host = false;
  static MemThread host_thread() { return {~0ull, ~0ull, true}; }
};

// The memory order of an access or fence, as its instruction gives it.
struct MemOrder {
  ptx::Sem sem = ptx::Sem::None;
  ptx::Scope scope = ptx::Scope::None;
  // The read of a reduction (red), which forms no acquire pattern (PTX ISA 9.0, "Reductions do
  // not form Acquire Patterns").
  bool reduction = false;
  // A load after which its thread can acquire nothing (independent thread scheduling; no
  // instruction that may acquire, and no read-modify-write, is reachable after it:
  // ptx::Instr::kExecNoAcquireAfter): it can never be part of an acquire pattern, so it may read a
  // store that waits for a release of a load-buffering plan (plan_step's hidden below).
  bool no_acquire_after = false;
  // A read after which its thread can release nothing (independent thread scheduling; no
  // instruction that may release is reachable after it: ptx::Instr::kExecNoReleaseAfter): what it
  // observes goes on to no other thread, so it may read a store run early by a load-buffering plan
  // that holds back an acquiring read-modify-write (begin_early's acquire_rmw_held below).
  bool no_release_after = false;
};

// Who may choose the value a load reads instead of the seed (a schedule file's `read` lines,
// sim/sched/replay_scheduler.h). choose_read(lane, n): the lane (0..31 of its warp) loads from a
// location where n > 1 values are readable; returns k (read the k-th newest of them, 0 = the
// newest) or -1 to let the seed decide.
struct ReadChooser {
  virtual ~ReadChooser() = default;
  virtual int64_t choose_read(uint32_t lane, size_t n) = 0;
};

// An outcome a search wants to see (synclab-litmus run --aim): the relaxed model still makes only
// the choices its rules allow, but among them prefers those that give the outcome, so that a rare
// outcome (several threads reading old values at once) shows in a few seeds. wants_read: thread t
// reading `value` from `key` is what the outcome's register holds. wants_final: 1 when `value` is
// the final value the outcome wants at `key`, 0 when it wants another, -1 when it names none.
struct OutcomeAim {
  virtual ~OutcomeAim() = default;
  virtual bool wants_read(const MemThread& t, uint64_t key, uint64_t value) const = 0;
  virtual int wants_final(uint64_t key, uint64_t value) const = 0;
};

class ConsistencyModel {
 public:
  virtual ~ConsistencyModel() = default;
  virtual bool relaxed() const = 0;
  virtual void set_read_chooser(ReadChooser* c) {}
  virtual void set_aim(const OutcomeAim* a) {}

  // A block starts or finishes.
  virtual void start_block(uint64_t cta) {}
  virtual void end_block(uint64_t cta) {}

  // A load of `size` bytes (1, 2, 4 or 8) at location `key` (a generic address; shared memory:
  // a key of its block) whose newest value is `latest`: returns the value it reads.
  virtual uint64_t load(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o, uint64_t now) = 0;
  // A store of `value`; `latest` is memory's value before it. True when the store is the newest
  // write in coherence order (memory takes its value), false when it goes before newer ones.
  virtual bool store(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, MemOrder o,
                     uint64_t now) = 0;
  // A read-modify-write, in two steps: rmw_read returns the value its read reads; the caller
  // computes the new value and calls rmw_write (wrote: false for a compare-and-swap that failed,
  // which only reads), which returns true when the write is the newest (memory takes it).
  // newest: the read must read `latest` (an mbarrier arrival, which the simulator applies to memory
  // at once). cas_expected: a compare-and-swap's expected value (a read of another value writes
  // nothing).
  virtual uint64_t rmw_read(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o, uint64_t now,
                            bool newest = false, const uint64_t* cas_expected = nullptr) = 0;
  virtual bool rmw_write(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, bool wrote, MemOrder o,
                         uint64_t now) = 0;
  // fence.* and membar (sem Sc: fence.sc and membar; AcqRel: fence.acq_rel and fence without a
  // qualifier; Acquire / Release: fence.acquire / fence.release).
  virtual void fence(const MemThread& t, MemOrder o) {}
  // A barrier of block `cta`: threads arrive (bar.arrive arrives without waiting), then the
  // barrier releases the threads in `ids` (every live thread of the block: whole_block).
  // waited: each thread of `ids` made no access between its arrival and the release (a thread is a
  // lane; not so under lockstep, where a warp is one thread and another of its paths may run).
  virtual void barrier_arrive(const MemThread& t, uint32_t barrier) {}
  virtual void barrier_release(uint64_t cta, uint32_t barrier, const std::vector<uint64_t>& ids, bool whole_block,
                               bool waited = false) {}
  // __syncwarp() (and shfl.sync, beyond PTX): the lanes `ids` (threads of one warp) synchronize.
  virtual void warp_sync(uint64_t cta, const std::vector<uint64_t>& ids) {}

  // Load buffering: the interpreter runs a thread's later independent stores before one of its
  // loads (relaxed/load_buffering.h). begin_early before the first early instruction (`length`:
  // instructions on the plan's path), end_early after the last; the load itself (and any
  // instruction it holds back) comes later, between begin_late and end_late. plan_step before
  // each instruction of the plan: its place on the path (the load is 0), so that the execution's
  // program order stays the program's.
  // plan_step's hidden: the early store that follows waits for releases of the plan, at most this
  // wide (ptx::Scope::None: none); the model keeps it from the morally strong readers they could
  // synchronize with until end_late, then gives it what they release.
  // begin_early's acquire_rmw_held: the plan holds back a read-modify-write that may acquire (an
  // acquire one, or one with an acquire held back after it). With hide_acq (only with
  // acquire_rmw_held), its early stores are
  // kept from the readers of other threads that may release after the read (a release could
  // carry such a store to where the held-back read-modify-write reads, and leave it nothing it
  // may read) until end_late; without, no release the plan may acquire can be made from now on
  // (its acquires are .cta and no other thread of its block may release any more: the
  // interpreter's KernelRun::reorder_load). begin_early's acquire_held: the plan holds back an acquire (the
  // load, a later acquire load or read-modify-write, an acquire fence, an acquire pattern) that the
  // read-modify-writes it runs early come after in program order: their reads take what it would
  // acquire of the releases the thread read before as already known. begin_late's fence_acquire:
  // the widest scope of an acquire fence held back with the load (ptx::Scope::None: none).
  // plan_step's before_late_write: a held-back write of the plan may touch the location of the
  // early store that follows and come before it in program order (it will have to go before that
  // store in coherence order).
  virtual void begin_early(const MemThread& t, uint32_t length, bool acquire_rmw_held = false,
                           bool acquire_held = false, bool hide_acq = false) {}
  virtual void end_early(const MemThread& t) {}
  virtual void begin_late(const MemThread& t, ptx::Scope fence_acquire) {}
  virtual void end_late(const MemThread& t) {}
  virtual void plan_step(const MemThread& t, uint32_t pos, ptx::Scope hidden = ptx::Scope::None,
                         bool before_late_write = false) {}

  // Every location's newest value becomes the only one any thread may read (a suspected hang,
  // the end of a traced launch). True when some thread could have read an older value before.
  virtual bool settle() { return false; }
  // A choice of the model that the seed decides: uniform in [0, n).
  virtual uint64_t random(uint64_t n) { return 0; }
  // Whether thread t tries load buffering at this load (the seed decides, at a rate the seed also
  // sets).
  virtual bool try_load_buffering(const MemThread& t) { return false; }

  // What the model did, for reports and the trace.
  virtual uint64_t stale_reads() const { return 0; }
  // Reads that found nothing the model's rules let them read, and took the newest value (a defect
  // of the model: SYNCLAB_MEMORY_CHECK reports every run that has one).
  virtual uint64_t dead_ends() const { return 0; }
  virtual uint64_t early_stores() const { return 0; }
  virtual uint64_t late_loads() const { return 0; }
  virtual void note_late_load() {}
  uint64_t reorderings() const { return stale_reads() + early_stores() + late_loads(); }
  // Which write the last load (or read-modify-write's read) read, and which the last store (or
  // read-modify-write's write) made, as a version of its location that no other write has
  // (0: the location keeps no older writes, so the read read memory's newest value). The race
  // checker takes an acquire's release from the write the load read (sim/check/race_detector.h).
  virtual uint64_t read_version() const { return 0; }
  virtual uint64_t write_version() const { return 0; }
  // Whether a location still has older values some thread may read; and who hears when a
  // location's older values are all forgotten (its newest write became visible to all).
  virtual bool has_older(uint64_t key) { return false; }
  virtual void on_visible(std::function<void(uint64_t key)> f) {}
  // Before a device access to a word of mapped pinned or managed memory (`p`, `size` bytes, the
  // model's element size): host threads may write such words at any time. A relaxed model keeps
  // their values as the host's writes (the host a thread at system scope).
  virtual void host_word(uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) {}
  // A device read-modify-write of such a word whose write was the newest, but a host thread wrote
  // the word between the device's read and its write (host atomics do not wait for the model): the
  // simulator applied the device's operation again, to the host's value, and the device returns
  // that value. The model takes memory's value as a host write after the device's and gives thread
  // `t` everything the host has released, so that none of its later reads is older than memory.
  virtual void host_raced(const MemThread& t, uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) {}
  // A location accessed with two sizes in this launch: what to report, once ("" when none).
  virtual std::string take_not_covered() { return ""; }

  // SYNCLAB_MEMORY_CHECK=1: the execution graph of the launch (events, reads-from, coherence
  // order, ...) for the oracle; null when not recorded.
  virtual const memory::Execution* execution() const { return nullptr; }
  virtual std::string recording_limit() const { return ""; }
};

// The model a launch runs under: sc, or relaxed with its seed (threads_per_block: to number a
// block's threads); record: keep the execution graph for the oracle.
std::unique_ptr<ConsistencyModel> make_consistency_model(bool relaxed, uint64_t seed, uint32_t threads_per_block,
                                                         bool record);

}  // namespace synclab::sim
