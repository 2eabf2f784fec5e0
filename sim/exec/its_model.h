// The ITS warp model (independent thread scheduling, Volta and later): every lane has its own PC;
// at each step the ready lanes at the same PC form groups and the scheduler picks one, so a lane
// that holds a lock can run while its warp-mates spin. A converged warp (every ready lane at one
// PC) keeps that PC once (Warp::cfunc/cpc) instead of in every lane: the common case costs one
// PC update per step. See warp_model.h for what a warp model provides.
#pragma once

#include "sim/exec/kernel_run.h"
#include "sim/exec/warp_model.h"

namespace synclab::sim {

struct ItsModel {
  static constexpr WarpModel kKind = WarpModel::Its;

  static bool pick_group(KernelRun& k, Warp& w, Group* g) {
    if (w.converged) {
      w.split_hold = 0;  // (converged again: nobody is held back)
      *g = {w.cfunc, w.cpc, w.ready_mask};
      if (k.splits_warps() && (w.ready_mask & (w.ready_mask - 1))) split(k, w, g);
      return true;
    }
    return pick_diverged(k, w, g);
  }
  // Sometimes (seeded) runs only some lanes of a converged warp's memory access: CUDA promises no
  // convergence under independent thread scheduling, and code that needs its lanes together must
  // say so (__syncwarp()). The lanes meet again where their PCs do.
  static void split(KernelRun& k, Warp& w, Group* g);

  static bool continue_group(Warp& w, Group* g) {
    const uint32_t pc = g->pc + 1;
    // Lanes with PCs of their own: let the scheduler regroup them.
    if (!w.converged || w.cfunc != g->func || w.cpc != pc || w.ready_mask != g->mask) return false;
    g->pc = pc;
    return true;
  }

  static void advance(KernelRun& k, Warp& w, const Group& g, uint32_t mask) {
    if (w.converged && mask == g.mask && !k.lane_pcs_live())
      w.cpc = g.pc + 1;
    else
      advance_lanes(w, g, mask);
  }

  static void skip_to(KernelRun& k, Warp& w, const Group& g, uint32_t pc) {
    if (w.converged && !k.lane_pcs_live())
      w.cpc = pc;
    else
      for (uint32_t m = g.mask; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pc = pc;
  }
  static void materialize(Warp& w);
  static void branch(KernelRun& k, Warp& w, const Group& g, uint32_t taken, uint32_t target);
  static bool branch_apart(KernelRun& k, Warp& w, int lane, uint32_t lanes, uint32_t target, const ptx::Instr& I);
  static void called(Warp& w, const Group&, uint32_t, uint32_t, bool) { w.converged = false; }
  static void returned(Warp& w, uint32_t) { w.converged = false; }
  static void exited(Warp& w, uint32_t) { w.runnable = w.ready_mask; }
  static void blocked(Warp& w) { w.runnable = w.ready_mask; }
  static void released(Warp& w, uint32_t lanes, uint32_t ready_before, bool one_pc, uint32_t func, uint32_t pc);
  static void warp_sync(KernelRun& k, Warp& w, const Group& g, uint32_t act, const ptx::Function& fn,
                        const ptx::Instr& I);
  static void lanes_left(KernelRun& k, Warp& w);
  static void lane_pcs_written(Warp& w) {
    // The lanes' PCs were written one by one: a warp still converged has them all at one PC.
    if (w.converged && w.ready_mask) {
      const Lane& L = w.lanes[__builtin_ctz(w.ready_mask)];
      w.cfunc = L.func;
      w.cpc = L.pc;
    }
  }

 private:
  static void advance_lanes(Warp& w, const Group& g, uint32_t mask);
  // The ready lanes grouped by PC, then the scheduler's pick among the groups.
  static bool pick_diverged(KernelRun& k, Warp& w, Group* g);
  static void groups(const Warp& w, std::vector<Group>* out);
  // The lanes waiting (AtWarpSync) at a warp-synchronous instruction that can complete together
  // with one at (func, pc).
  static uint32_t warp_sync_waiters(const KernelRun& k, const Warp& w, uint32_t func, uint32_t pc);
  // Completes the groups of `arrived` whose member masks are met (fresh: the lanes that arrive
  // with this step); false when none is.
  static bool complete_warp_syncs(KernelRun& k, Warp& w, uint32_t arrived, uint32_t fresh, const ptx::Instr& I);
};

}  // namespace synclab::sim
