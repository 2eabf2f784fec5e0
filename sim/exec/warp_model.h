// A warp model decides which lanes of a warp execute together: how they are grouped at each step,
// where each lane goes after a branch, a call, a return or an exit, when lanes that split come
// back together, and which lanes may run while others wait at a barrier or a warp-synchronous
// instruction. The course teaches two:
//
//   lockstep_model.h  pre-Volta SIMT: one PC per warp, a reconvergence stack, one path at a time
//   its_model.h       Volta and later (independent thread scheduling): a PC per lane, lanes at
//                     the same PC grouped at every step, any group may run next
//
// Both are structs of static functions over a KernelRun, which they reach through its public
// section for the warp models (the module's code, the scheduler's pick among groups, the spin
// check at a backward branch, warp synchronization, exits); a warp's own state (Warp, Lane, the
// reconvergence stack) is theirs to read and write. The step loop, the dispatcher and the control-flow code are
// templates over the model (KernelRun::step_loop<Model> and the rest), chosen once per launch, so the hot loop makes no
// call through a pointer to decide anything about the model. Every model provides:
//
//   kKind                                   the WarpModel it implements
//   pick_group(k, w, &g)                    the lanes that run at the warp's next step (false: none)
//   continue_group(w, &g)                   after a private instruction: the same lanes' next one
//   advance(k, w, g, mask)                  lanes `mask` of group g go on to the next instruction
//   skip_to(k, w, g, pc)                    group g goes on at pc (after instructions run out of order)
//   materialize(w)                          write the lanes' PCs into the lanes (they may be kept
//                                           per warp or per stack entry while nobody looks)
//   branch(k, w, g, taken, target)          lanes `taken` jump, the rest of g falls through
//   branch_apart(k, w, lane, lanes, target) some lanes of g jump where the others do not (brx)
//   called(w, g, act, callee, set_return)   lanes `act` entered `callee` (frames already pushed)
//   returned(w, act)                        lanes `act` returned to their callers
//   exited(w, lanes)                        lanes left the warp (Warp::exited_mask updated)
//   blocked(w)                              lanes stopped at a barrier (Warp::ready_mask updated)
//   released(w, lanes, ready_before, one_pc, func, pc)  a barrier let `lanes` go on at (func, pc)
//                                           (one_pc: all of them there)
//   warp_sync(k, w, g, act, fn, I)          a .sync warp instruction (bar.warp.sync, shfl.sync,
//                                           vote.sync, match.sync, redux.sync) by lanes `act`
//   lanes_left(k, w)                        lanes exited: warp-synchronous waits that named them
//                                           may complete
//   lane_pcs_written(w)                     after an instruction that moved lanes one by one
#pragma once

#include <cstdint>

namespace synclab::sim {

// The lanes of a warp that execute one instruction together: all at `pc` of function `func`.
struct Group {
  uint32_t func, pc, mask;
};

struct LockstepModel;
struct ItsModel;

}  // namespace synclab::sim
