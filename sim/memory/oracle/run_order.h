// Which executions the simulator's relaxed model can reach, structurally: the model runs each
// thread's instructions one at a time, in program order except for load buffering (a load, and
// what must wait for it, held back past later stores of its thread: sim/memory/relaxed/
// load_buffering.h), and orders fence.sc in the order they run. Whatever else PTX allows (a load
// reading an old value, stores taking effect in different orders for different threads, writes
// no scope covers left unordered) it chooses at random when an access runs. So an execution the
// PTX axioms allow can come out of the model only if some order of running the instructions puts
// every write before the reads that read it, every two morally strong fence.sc in their Fence-SC
// order, and a barrier's arrivals before its waits.
//
// run_order_exists() decides that for one execution of a litmus test; the limits name the model's
// rules, and relaxing one of them says which rule keeps an outcome out of reach (the table of
// docs/memory-model.md, and `synclab-litmus run --gaps`).
#pragma once

#include <string>
#include <vector>

#include "sim/memory/oracle/execution.h"
#include "sim/memory/oracle/litmus.h"

namespace synclab::memory {

struct RunOrderLimits {
  bool fence_sc_in_run_order = true;  // morally strong fence.sc run in their Fence-SC order
  // a load may be held back past a fence.sc when a write, a fence or a read-modify-write is held
  // back before it (the model runs a fence.sc early when only loads are held back before it)
  bool hold_past_fence_sc = false;
  bool hold_past_barrier = false;  // ... past a barrier
  // a read-modify-write that releases may run early after a held-back write, fence or
  // read-modify-write (the model runs one early when only loads are held back before it)
  bool early_release_rmw = false;
  // a read-modify-write may run before an earlier held-back write of its location (the load
  // itself, if it is a read-modify-write), and a compare-and-swap or acquiring read-modify-write
  // before an earlier read of its location (the model runs stores before any held-back access of
  // their location, and other read-modify-writes before held-back loads of their location)
  bool early_same_location = false;
  // a store may run past a fence or barrier that depends on the load (a branch on the loaded
  // value before it): the model holds back everything after such a branch, so it stops there
  bool early_past_dependent_address = false;
  // a later load (and the stores that depend on it alone) may run before the load held back: the
  // model holds every later load back with it
  bool early_loads = false;
  // a compare-and-swap after a held-back acquire (the load itself, a later acquire load, an
  // acquire fence) may run early: the model holds it back with them (a failed one writes nothing,
  // which its checks at the acquire could not see)
  bool early_rmw_after_acquire = false;
  // a store run early after a release of its plan (or a release itself) may be read by a morally
  // strong reader those releases cover before the held-back part has run: the model keeps it
  // hidden from them until then (what it releases is not known yet), except from a load that can
  // never acquire (neither an acquire nor followed by an acquire fence, a barrier or an acquire
  // access in its thread)
  bool hidden_readable = false;
  // a store run early by a plan that holds back a read-modify-write that may acquire may be read,
  // before the held-back part has run, by a reader of another thread that may release after the
  // read: the model keeps it hidden from such readers until then (such a release could carry it to
  // where the held-back read-modify-write reads and leave that nothing to read)
  bool acquire_hidden_readable = false;
  // a load held back before a release or fence run early (only loads held back before it) may
  // read a write its thread did not know at the release once something that follows the release
  // in causality order has run (a read that may acquire, of a store the plan ran early from the
  // release on; a morally strong fence.sc after a fence.sc): the model keeps it to what its thread
  // knew then
  bool taken_readable = false;
  // A name for the rules relaxed here ("" when none is).
  std::string relaxed() const;
  // The rules relaxed here or in o, both.
  RunOrderLimits with(const RunOrderLimits& o) const;
};

// The events of each instruction: per thread, per instruction index, the execution's events for it
// (a read-modify-write: its read and write; a failed compare-and-swap: its read; a barrier: its
// arrival and wait).
using InstrEvents = std::vector<std::vector<std::vector<uint32_t>>>;

// Whether some order of running the test's instructions that the model can follow (within `lim`)
// agrees with x's reads-from, Fence-SC order and barriers.
bool run_order_exists(const LitmusTest& t, const Execution& x, const InstrEvents& ev, const RunOrderLimits& lim);

}  // namespace synclab::memory
