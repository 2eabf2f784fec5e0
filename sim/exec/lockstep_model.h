// The lockstep warp model (pre-Volta SIMT; seed 000 sec. 4): the warp has one PC, kept on its
// ReconvergenceStack (reconvergence_stack.h). Only the top entry's lanes run; at a divergent
// branch the stack splits and the warp runs one side, then the other, until both reach the
// branch's immediate post-dominator. Lanes' own PCs follow the stack and are written into the
// lanes only when someone looks (materialize). See warp_model.h for what a warp model provides.
#pragma once

#include "sim/exec/kernel_run.h"
#include "sim/exec/warp_model.h"

namespace synclab::sim {

struct LockstepModel {
  static constexpr WarpModel kKind = WarpModel::Lockstep;

  static bool pick_group(KernelRun&, Warp& w, Group* g) {
    w.stack.pop_reconverged();
    if (w.stack.empty()) {
      w.runnable = 0;
      return false;
    }
    const StackEntry& t = w.stack.top();
    g->func = t.func;
    g->pc = t.pc;
    g->mask = t.mask & w.ready_mask;
    if (!g->mask) {
      w.runnable = 0;
      return false;
    }
    return true;
  }

  static bool continue_group(Warp& w, Group* g) {
    const uint32_t pc = g->pc + 1;
    if (w.stack.empty()) return false;
    const StackEntry& t = w.stack.top();
    if (t.func != g->func || t.pc != pc || t.pc == t.rpc || (t.mask & w.ready_mask) != g->mask) return false;
    g->pc = pc;
    return true;
  }

  // The whole top entry moves on: lanes that sat the instruction out (a false guard) go with it.
  static void advance(KernelRun&, Warp& w, const Group& g, uint32_t) { w.stack.top().pc = g.pc + 1; }
  static void skip_to(KernelRun&, Warp& w, const Group&, uint32_t pc) { w.stack.top().pc = pc; }

  static void materialize(Warp& w);
  static void branch(KernelRun& k, Warp& w, const Group& g, uint32_t taken, uint32_t target);
  static bool branch_apart(KernelRun& k, Warp& w, int lane, uint32_t lanes, uint32_t target, const ptx::Instr& I);
  static void called(Warp& w, const Group& g, uint32_t act, uint32_t callee, bool set_return_pc);
  static void returned(Warp& w, uint32_t act);
  static void exited(Warp& w, uint32_t lanes);
  static void blocked(Warp& w) { w.runnable = w.stack.top().mask & w.ready_mask; }
  static void released(Warp& w, uint32_t lanes, uint32_t ready_before, bool one_pc, uint32_t func, uint32_t pc);
  static void warp_sync(KernelRun& k, Warp& w, const Group& g, uint32_t act, const ptx::Function& fn,
                        const ptx::Instr& I);
  static void lanes_left(KernelRun&, Warp&) {}  // nothing waits: the active lanes are the warp
  static void lane_pcs_written(Warp&) {}        // the stack holds the PCs

 private:
  // The instruction at (func, pc) is an unconditional kernel-level ret or an exit.
  static bool exits_thread(const KernelRun& k, uint32_t func, uint32_t pc);
  // Lanes run: what the top entry lets run.
  static void set_runnable(Warp& w) { w.runnable = w.stack.empty() ? 0 : (w.stack.top().mask & w.ready_mask); }
};

}  // namespace synclab::sim
