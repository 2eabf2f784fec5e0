#include "sim/exec/its_model.h"

#include <algorithm>

#include "sim/exec/instr/operands.h"

namespace synclab::sim {

using ptx::Op;

void ItsModel::advance_lanes(Warp& w, const Group& g, uint32_t mask) {
  for (uint32_t m = mask; m; m &= m - 1) ++w.lanes[__builtin_ctz(m)].pc;
  if (mask != g.mask) w.converged = false;
}

void ItsModel::groups(const Warp& w, std::vector<Group>* out) {
  out->clear();
  for (uint32_t m = w.ready_mask & ~w.split_hold; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    bool placed = false;
    for (Group& g : *out)
      if (g.func == L.func && g.pc == L.pc) {
        g.mask |= 1u << lane;
        placed = true;
        break;
      }
    if (!placed) out->push_back({L.func, L.pc, 1u << lane});
  }
  std::sort(out->begin(), out->end(),
            [](const Group& a, const Group& b) { return a.func != b.func ? a.func < b.func : a.pc < b.pc; });
}

bool ItsModel::pick_diverged(KernelRun& k, Warp& w, Group* g) {
  std::vector<Group>& groups_here = k.group_scratch();
  if (w.split_hold) {
    // Lanes a split left behind run again when their time is up, or when no other lane can run.
    if (w.split_hold_steps == 0 || !(w.ready_mask & ~w.split_hold))
      w.split_hold = 0;
    else
      --w.split_hold_steps;
  }
  groups(w, &groups_here);
  if (groups_here.size() == 1 && groups_here[0].mask == w.ready_mask) {
    w.converged = true;
    w.cfunc = groups_here[0].func;
    w.cpc = groups_here[0].pc;
    *g = groups_here[0];
    return true;
  }
  const KernelRun::GroupPick pick = k.pick_group(w, groups_here);
  *g = groups_here[pick.index];
  // A group that took a backward branch (a spin) yields until every other group has had its
  // turn: its lanes stay marked while the others run, so two spinning groups cannot starve a
  // third that would release them. When every group has yielded, the round starts over.
  if (pick.yielded) {
    if (pick.all_yielded)
      w.yielded_mask = 0;
    else
      w.yielded_mask &= ~g->mask;
  }
  return true;
}

void ItsModel::split(KernelRun& k, Warp& w, Group* g) {
  const ptx::Instr& I = k.function(w.cfunc).code[w.cpc];
  const bool memory = (I.op == Op::Ld || I.op == Op::St || I.op == Op::Atom || I.op == Op::Red) &&
                      I.space != ptx::Space::Param && I.space != ptx::Space::Local && I.space != ptx::Space::Const;
  if (!memory) return;
  const uint64_t draw = k.split_draw(w);
  if (draw == 0) return;
  uint32_t part = uint32_t(draw) & w.ready_mask;
  if (part == 0 || part == w.ready_mask) part = w.ready_mask & (0u - w.ready_mask);  // the lowest lane alone
  materialize(w);
  w.converged = false;
  g->mask = part;
  // The others wait a few of the warp's steps (1 to 16), so that the first part can get ahead.
  w.split_hold = w.ready_mask & ~part;
  w.split_hold_steps = 1 + uint32_t(draw >> 32 & 15);
}

void ItsModel::materialize(Warp& w) {
  if (!w.converged) return;
  for (uint32_t m = w.ready_mask; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.func = w.cfunc;
    L.pc = w.cpc;
  }
}

void ItsModel::branch(KernelRun& k, Warp& w, const Group& g, uint32_t taken, uint32_t target) {
  const uint32_t not_taken = g.mask & ~taken;
  const bool backward = target <= g.pc;
  if (w.converged && (!taken || !not_taken)) {
    // A uniform branch keeps a converged warp converged: only its one PC moves.
    w.cpc = taken ? target : g.pc + 1;
    if (backward && taken) k.looped(w, taken, g.func, target);
    return;
  }
  if (w.converged) materialize(w);
  for (uint32_t m = taken; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pc = target;
  for (uint32_t m = not_taken; m; m &= m - 1) ++w.lanes[__builtin_ctz(m)].pc;
  if (taken && not_taken) w.converged = false;
  if (backward && taken) {
    if (!w.converged || taken != w.ready_mask) w.yielded_mask |= taken;
    k.looped(w, taken, g.func, target);
  }
}

bool ItsModel::branch_apart(KernelRun&, Warp& w, int, uint32_t lanes, uint32_t target, const ptx::Instr&) {
  for (uint32_t m = lanes; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pc = target;
  w.converged = false;
  return true;
}

void ItsModel::released(Warp& w, uint32_t, uint32_t ready_before, bool one_pc, uint32_t func, uint32_t pc) {
  // When the released lanes are all the warp's ready lanes and stand at one PC, the warp is
  // converged there: what groups() would find at the warp's next step.
  w.converged = !ready_before && one_pc;
  if (w.converged) {
    w.cfunc = func;
    w.cpc = pc;
  }
  w.runnable = w.ready_mask;
}

// A lane executes a .sync warp instruction once every live lane named in its member mask has
// arrived (bar.warp.sync: at any __syncwarp, the lanes of a mask may meet at different calls; the
// other .sync instructions: at this one). Until then it waits (LaneState::AtWarpSync).
void ItsModel::warp_sync(KernelRun& k, Warp& w, const Group& g, uint32_t act, const ptx::Function&,
                         const ptx::Instr& I) {
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    w.lanes[lane].sync_mask = k.member_mask_of(w, lane, I);
  }
  const uint32_t arrived = act | warp_sync_waiters(k, w, g.func, g.pc);
  if (k.member_masks_heard())
    for (uint32_t m = act; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      k.member_mask_heard(w, lane, w.lanes[lane].sync_mask, arrived, I, false);
    }
  if (act != g.mask) advance(k, w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) w.lanes[__builtin_ctz(m)].state = LaneState::AtWarpSync;
  w.ready_mask &= ~act;
  w.converged = false;
  complete_warp_syncs(k, w, arrived, act, I);
  w.runnable = w.ready_mask;
}

uint32_t ItsModel::warp_sync_waiters(const KernelRun& k, const Warp& w, uint32_t func, uint32_t pc) {
  const bool barwarp = k.function(func).code[pc].op == Op::BarWarpSync;
  uint32_t waiting = 0;
  for (uint32_t m = w.live_mask() & ~w.ready_mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    if (L.state != LaneState::AtWarpSync) continue;
    if (barwarp ? k.function(L.func).code[L.pc].op == Op::BarWarpSync : (L.func == func && L.pc == pc))
      waiting |= 1u << lane;
  }
  return waiting;
}

bool ItsModel::complete_warp_syncs(KernelRun& k, Warp& w, uint32_t arrived, uint32_t fresh, const ptx::Instr& I) {
  // Lanes whose mask names a live lane that has not arrived keep waiting, and so do the lanes
  // whose masks name those: what remains is every group whose own mask is complete. Groups with
  // disjoint masks complete independently of each other.
  const uint32_t live = w.live_mask();
  uint32_t done = arrived;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t m = done; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      if (w.lanes[lane].sync_mask & live & ~done) {
        done &= ~(1u << lane);
        changed = true;
      }
    }
  }
  if (!done) return false;
  // Each group (lanes connected through their masks) synchronizes on its own: a warp_sync edge
  // or a shuffle joins only the lanes of one mask.
  for (uint32_t rest = done; rest;) {
    uint32_t group = 1u << __builtin_ctz(rest), grown;
    do {
      grown = group;
      for (uint32_t m = rest; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        if ((group >> lane & 1) || (w.lanes[lane].sync_mask & group))
          group |= (w.lanes[lane].sync_mask & rest) | 1u << lane;
      }
    } while (group != grown);
    rest &= ~group;
    // bar.warp.sync (__syncwarp()) orders memory among the lanes it joins (PTX ISA,
    // "bar.warp.sync": it guarantees memory ordering among the participating threads). vote,
    // match and redux exchange values and wait for their lanes, but PTX gives them no memory
    // order: a lane that learns by a vote that a warp-mate acquired a lock has acquired nothing
    // itself. shfl.sync has none in PTX either, but here it orders as __syncwarp() does, a rule
    // stronger than PTX kept because cooperative groups relies on it (a tile larger than a warp
    // syncs with one lane's acquire and hands the outcome to its warp-mates by a shuffle;
    // docs/memory-model.md).
    if (I.op == Op::BarWarpSync || I.op == Op::Shfl) k.warp_synced(w, group);
    if (I.op != Op::BarWarpSync) k.exec_warp_op(w, group, I);
  }
  for (uint32_t m = done; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    L.state = LaneState::Ready;
    ++L.pc;
  }
  w.ready_mask |= done;
  w.converged = false;
  w.runnable = w.ready_mask;
  // Lanes that waited go on: a change a spin check must see (a group that arrives and goes on
  // together, as in a loop around __syncwarp(), changes nothing others can see).
  if (done & ~fresh) k.warp_sync_resumed(w, done & ~fresh);
  return true;
}

void ItsModel::lanes_left(KernelRun& k, Warp& w) {
  // A lane that exited no longer holds back the warp-synchronous instructions that named it.
  for (uint32_t m = w.live_mask() & ~w.ready_mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    const Lane& L = w.lanes[lane];
    if (L.state != LaneState::AtWarpSync) continue;
    const ptx::Instr& I = k.function(L.func).code[L.pc];
    complete_warp_syncs(k, w, warp_sync_waiters(k, w, L.func, L.pc), 0, I);
  }
}

}  // namespace synclab::sim
