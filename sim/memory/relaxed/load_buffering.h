// Load buffering: a load that takes effect after later stores of its thread. The PTX model keeps
// no load before a later store to another location unless something orders them (a fence, a
// release or acquire pattern, a barrier) or the store depends on the load (data, address or
// control dependency: "No Thin Air"); so in `r = ld [x]; st [y], 1` the store may take effect
// first, and another thread's store to x made after seeing y = 1 can be the value r reads (the
// "Load Buffering" litmus test).
//
// The interpreter makes that happen by running some instructions early: at a load (or an atom) it
// asks plan_load_buffering() for a plan over the next few instructions of the group's path:
//   early  instructions that do not depend on the load, run now (computations, stores, a
//          fence.sc; a store to the location of a held-back access comes after that access in
//          coherence order, and the model keeps the two in that order: load_buffering.cpp);
//   late   the load itself, then every instruction that depends on it or must keep its order
//          with it (other loads, acquire ones too; stores of values or to addresses computed
//          from it), run at the
//          group's next step, in program order;
// the plan ends with an early store (one of those found, by `choice`), and the group then goes on
// after it. Branches on the way are followed when their condition is known now and the same for
// the whole group. Release stores may run early, and fences other than fence.sc are held back with
// the load (an early store after a release then waits for what it releases: early_hidden). A
// fence.sc runs early, in its place, when only loads are held back before it (the model keeps
// those loads from what follows it in causality order: RelaxedModel::readable); another fence.sc,
// a barrier, a read-modify-write that releases or anything else that leaves the straight path
// ends the search.
#pragma once

#include <cstdint>

#include "sim/ptx/ir.h"

namespace synclab::sim::relaxed {

struct LbPlan {
  static constexpr int kMax = 12;
  uint32_t early[kMax];
  uint32_t early_pos[kMax];  // each one's place in program order on the path (the load is 0)
  // An early store that is a release, or comes after a release store or a release fence of the
  // plan: what it releases is known only once the late part has run (the model keeps it, until
  // then, from the morally strong readers those releases could synchronize with:
  // ConsistencyModel::plan_step). The widest scope of those releases; ptx::Scope::None: none.
  ptx::Scope early_hidden[kMax];
  // An early store that a held-back write (a store or read-modify-write) of its location may come
  // before in program order: that write will go before it in coherence order, so the model keeps
  // room there (ConsistencyModel::plan_step's before_late_write).
  bool early_before_write[kMax];
  uint32_t n_early = 0;
  uint32_t late[kMax];
  uint32_t late_pos[kMax];
  uint32_t n_late = 0;
  uint32_t resume = 0;  // the instruction the group goes on with after the late ones
  uint32_t length = 0;  // instructions on the path, the load included
  // The widest scope of an acquire fence (fence.acq_rel, fence.acquire) held back with the load,
  // or of an acquire load held back after a read of its location (acquire pattern)
  // (ptx::Scope::None: none): what the load reads may then synchronize with it.
  ptx::Scope late_acquire = ptx::Scope::None;
  // A held-back read-modify-write (atom) that may acquire: an acquire one, or any with late_acquire
  // set (ConsistencyModel::begin_early's acquire_rmw_held).
  bool acquire_rmw_held = false;
  // The widest scope of the acquires held back (late_acquire, and every held-back acquire load,
  // read-modify-write or fence other than a release fence; ptx::Scope::None: none). With
  // acquire_rmw_held, a plan whose acquires are all .cta can synchronize only with releases of
  // its own block (KernelRun::reorder_load's block_releases_no_more).
  ptx::Scope acquire_scope = ptx::Scope::None;
  // An acquire is held back (the load, a later acquire load or read-modify-write, an acquire
  // fence, an acquire pattern: late_acquire) that read-modify-writes run early come after in
  // program order (ConsistencyModel::begin_early's acquire_held).
  bool acquire_held = false;
};

// What the planner must know of the group's state now.
class LbProbe {
 public:
  virtual ~LbProbe() = default;
  // The guard or branch predicate `reg` for the group's lanes: 1 true for all, 0 false for all,
  // -1 mixed.
  virtual int predicate(uint32_t reg) const = 0;
  // Whether the memory accesses of I and J may touch a common byte for some lane of the group
  // (false only when both addresses are computed from registers as they are now and differ).
  virtual bool may_alias(const ptx::Instr& I, const ptx::Instr& J) const = 0;
  // Whether every other thread of the group's block has exited or ends with its next instruction
  // (a store the plan keeps from the block's morally strong readers is then kept from none).
  virtual bool block_exiting() const { return false; }
};

// A plan for the load (ld or atom) at fn.code[pc]; false when no later store may go first.
// releases: whether stores that release (or follow a release fence) may run early. The race
// checker follows the order accesses run in, so it would take such a store's release as made
// before the accesses held back with the load: with the race checker on, they may not.
bool plan_load_buffering(const ptx::Function& fn, uint32_t pc, const LbProbe& probe, uint64_t choice, bool releases,
                         LbPlan* plan);

}  // namespace synclab::sim::relaxed
