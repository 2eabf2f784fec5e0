#include "sim/exec/lockstep_model.h"

#include <fmt/format.h>

#include "sim/exec/instr/operands.h"

namespace synclab::sim {

namespace {
constexpr uint32_t kExitPc = ptx::Function::kExitPc;
}

void LockstepModel::materialize(Warp& w) {
  for (const StackEntry& e : w.stack.entries())
    for (uint32_t m = e.mask & w.ready_mask; m; m &= m - 1) {
      Lane& L = w.lanes[__builtin_ctz(m)];
      L.func = e.func;
      L.pc = e.pc;
    }
}

bool LockstepModel::exits_thread(const KernelRun& k, uint32_t func, uint32_t pc) {
  const ptx::Function& fn = k.function(func);
  if (pc >= fn.code.size()) return false;
  const ptx::Instr& I = fn.code[pc];
  if (I.guard != ptx::Operand::kNoReg) return false;
  // `ret` ends the thread only in the kernel itself; in a device function it returns.
  return I.op == ptx::Op::Exit || (I.op == ptx::Op::Ret && k.is_kernel(func));
}

void LockstepModel::branch(KernelRun& k, Warp& w, const Group& g, uint32_t taken, uint32_t target) {
  const uint32_t not_taken = g.mask & ~taken;
  const bool backward = target <= g.pc;
  // The stack holds the PCs; lanes learn theirs when someone looks (materialize).
  StackEntry& t = w.stack.top();
  if (!not_taken) {
    t.pc = target;
  } else if (!taken) {
    t.pc = g.pc + 1;
  } else if (exits_thread(k, g.func, target) || exits_thread(k, g.func, g.pc + 1)) {
    // One side jumps straight to the kernel's ret/exit (`if (t >= n) return;`): those lanes
    // exit now, as `@p EXIT` does on hardware, whichever side the order setting runs first,
    // and the others go on alone. Exited lanes no longer hold up barriers (PTX ISA, bar.sync).
    const bool taken_exit = exits_thread(k, g.func, target);
    t.pc = taken_exit ? g.pc + 1 : target;
    k.exit_lanes<LockstepModel>(w, g, taken_exit ? taken : not_taken);  // pops the stack, sets runnable
    if (backward && !taken_exit) k.looped(w, taken, g.func, target);
    return;
  } else {
    const ptx::Function& fn = k.function(g.func);
    uint32_t rpc = fn.reconverge_pc.empty() ? kExitPc : fn.reconverge_pc[g.pc];
    // Reconverging at the kernel's ret/exit would park lanes that are done at a point where
    // they only exit: they would stay live and hold up every later __syncthreads() of the
    // block. Such lanes exit when they get there instead (no reconvergence entry to wait in).
    if (rpc != kExitPc && exits_thread(k, g.func, rpc)) rpc = kExitPc;
    if (k.lockstep_taken_first())
      w.stack.diverge(rpc, target, taken, g.pc + 1, not_taken);
    else
      w.stack.diverge(rpc, g.pc + 1, not_taken, target, taken);
  }
  w.stack.pop_reconverged();
  set_runnable(w);
  if (backward && taken) k.looped(w, taken, g.func, target);
}

bool LockstepModel::branch_apart(KernelRun& k, Warp& w, int lane, uint32_t, uint32_t, const ptx::Instr& I) {
  k.model_fault(w, lane, I, "divergent brx.idx under lockstep",
                "lanes of one warp jump through a table to different targets; not modelled under lockstep");
  return false;
}

void LockstepModel::called(Warp& w, const Group& g, uint32_t act, uint32_t callee, bool set_return_pc) {
  if (set_return_pc) w.stack.top().pc = g.pc + 1;  // the caller's entry resumes there
  const uint32_t depth = static_cast<uint32_t>(w.lanes[__builtin_ctz(act)].frames.size());
  w.stack.push({callee, 0, ReconvergenceStack::kExitPc, act, depth});
}

void LockstepModel::returned(Warp& w, uint32_t act) {
  // The returning lanes leave the callee's entries; the caller's entry (already at the return
  // PC) resumes when every lane that entered the call has returned.
  StackEntry& t = w.stack.top();
  t.mask &= ~act;
  if (!t.mask) w.stack.pop();
  w.stack.pop_reconverged();
  set_runnable(w);
}

void LockstepModel::exited(Warp& w, uint32_t lanes) {
  w.stack.remove_lanes(lanes);
  w.stack.pop_reconverged();
  set_runnable(w);
}

void LockstepModel::released(Warp& w, uint32_t lanes, uint32_t, bool, uint32_t, uint32_t) {
  // The released lanes stood at the barrier, which is the top entry's PC when they are its
  // lanes: the entry moves past it.
  StackEntry& t = w.stack.top();
  if ((t.mask & lanes) && t.pc == w.lanes[__builtin_ctz(lanes)].pc - 1) t.pc += 1;
  w.runnable = t.mask & w.ready_mask;
}

void LockstepModel::warp_sync(KernelRun& k, Warp& w, const Group& g, uint32_t act, const ptx::Function&,
                              const ptx::Instr& I) {
  // The active lanes are the warp: pre-Volta hardware had no finer synchronization.
  if (k.member_masks_heard())
    for (uint32_t m = act; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      k.member_mask_heard(w, lane, k.member_mask_of(w, lane, I), act, I, true);
    }
  if (I.op != ptx::Op::BarWarpSync) k.exec_warp_op(w, act, I);
  advance(k, w, g, g.mask);
}

}  // namespace synclab::sim
