// The dispatcher: one instruction for a group of lanes. Common arithmetic forms go straight to
// their handler; everything else through exec_instr, which hands control flow, barriers and warp
// synchronization to the warp model.

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "sim/exec/convert.h"
#include "sim/exec/instr/operands.h"
#include "sim/exec/its_model.h"
#include "sim/exec/lockstep_model.h"
#include "sim/exec/values.h"
#include "sim/memory/relaxed/load_buffering.h"

namespace synclab::sim {

using namespace instr;
using ptx::reads_reg;
using ptx::writes_reg;

namespace {

// What the load-buffering planner asks of a group's state now (load_buffering.h).
class GroupProbe final : public relaxed::LbProbe {
 public:
  GroupProbe(KernelRun& k, Warp& w, uint32_t mask, uint64_t (*addr)(KernelRun&, Lane&, const Operand&),
             bool (*exiting)(const KernelRun&, const Warp&, uint32_t))
      : k_(k), w_(w), mask_(mask), addr_(addr), exiting_(exiting) {}
  int predicate(uint32_t reg) const override {
    int v = -1;
    for (uint32_t m = mask_; m; m &= m - 1) {
      const int p = int(w_.lanes[__builtin_ctz(m)].R()[reg] & 1);
      if (v < 0)
        v = p;
      else if (v != p)
        return -1;
    }
    return v;
  }
  bool block_exiting() const override { return exiting_(k_, w_, mask_); }
  bool may_alias(const ptx::Instr& I, const ptx::Instr& J) const override {
    // Both addresses as generic addresses (shared memory in its window), per lane.
    auto where = [&](const ptx::Instr& X, Lane& L, uint64_t* at, uint64_t* size) {
      if (X.src[0].kind != Operand::Kind::Addr) return false;
      uint64_t a = addr_(k_, L, X.src[0]);
      if (X.space == ptx::Space::Shared) a += kSharedWindow;
      *at = a;
      const uint32_t es = ptx::type_size(X.type);
      *size = uint64_t(es ? es : 8) * (X.vec ? X.vec : 1);
      return true;
    };
    for (uint32_t m = mask_; m; m &= m - 1) {
      Lane& L = w_.lanes[__builtin_ctz(m)];
      uint64_t a, as, b, bs;
      if (!where(I, L, &a, &as) || !where(J, L, &b, &bs)) return true;
      if (a < b + bs && b < a + as) return true;
    }
    return false;
  }

 private:
  KernelRun& k_;
  Warp& w_;
  uint32_t mask_;
  uint64_t (*addr_)(KernelRun&, Lane&, const Operand&);
  bool (*exiting_)(const KernelRun&, const Warp&, uint32_t);
};

// Whether `next(f, pc)` holds for every live lane of w's block but the lanes `plan` of w, at the
// instruction it runs next (f.code[pc], pc possibly past the end).
template <class F>
bool every_other_lane(const ptx::Module& M, const Warp& w, uint32_t plan, F next) {
  for (const Warp& o : w.cta->warps)
    for (uint32_t m = o.live_mask() & ~(&o == &w ? plan : 0u); m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const Lane& L = o.lanes[lane];
      // (a converged warp's ready lanes are at its cfunc, cpc: their own PCs may be stale)
      const bool at_c = o.converged && (o.ready_mask >> lane & 1);
      if (!next(M.functions[at_c ? o.cfunc : L.func], at_c ? o.cpc : L.pc)) return false;
    }
  return true;
}

}  // namespace

bool KernelRun::block_exiting(const Warp& w, uint32_t plan) const {
  return every_other_lane(M_, w, plan, [](const ptx::Function& f, uint32_t pc) {
    return f.is_entry && pc < f.code.size() && f.code[pc].guard == Operand::kNoReg &&
           (f.code[pc].op == Op::Ret || f.code[pc].op == Op::Exit);
  });
}

bool KernelRun::block_releases_no_more(const Warp& w, uint32_t plan) const {
  return every_other_lane(M_, w, plan, [](const ptx::Function& f, uint32_t pc) {
    return pc < f.code.size() && (f.code[pc].exec & ptx::Instr::kExecNoReleaseFrom);
  });
}

// Load buffering (relaxed memory model): a relaxed, plain or acquire load (or an atom) may take
// effect after later stores of its thread that do not depend on it (sim/memory/relaxed/
// load_buffering.h). When the seed says so (under its; pre-Volta lockstep is outside the PTX
// model), this step runs the plan's early instructions and the group stays at the load; at its
// next step it runs the held-back ones (run_late) and goes on after the last early store.
// True when this step was such an early run.
template <class M>
bool KernelRun::reorder_load(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  if (cfg_.model != WarpModel::Its || w.lb_lanes || I.guard != Operand::kNoReg) return false;
  if (!mm_.relaxed->try_load_buffering(mm_thread(w, __builtin_ctz(g.mask)))) return false;
  GroupProbe probe(
      *this, w, g.mask, [](KernelRun& k, Lane& L, const Operand& o) { return k.address(L, o); },
      [](const KernelRun& k, const Warp& w, uint32_t mask) { return k.block_exiting(w, mask); });
  relaxed::LbPlan plan;
  if (!relaxed::plan_load_buffering(fn, g.pc, probe, mm_.relaxed->random(1u << 30), !listen_.race, &plan)) return false;
  const uint32_t lanes = warp_is_unit(M::kKind) ? g.mask & -g.mask : g.mask;
  // A held-back acquiring read-modify-write whose acquires are all .cta, of a plan of one thread, in
  // a block where no other thread may release any more: nothing it reads can carry a release it
  // acquires made since, so the early stores need not be kept from readers that may release.
  const bool hide_acq = plan.acquire_rmw_held && !(plan.acquire_scope == ptx::Scope::Cta &&
                                                   (lanes & (lanes - 1)) == 0 && block_releases_no_more(w, lanes));
  for (uint32_t m = lanes; m; m &= m - 1)
    mm_.relaxed->begin_early(mm_thread(w, __builtin_ctz(m)), plan.length, plan.acquire_rmw_held, plan.acquire_held,
                             hide_acq);
  for (uint32_t i = 0; i < plan.n_early && !stop_; ++i) {
    for (uint32_t m = lanes; m; m &= m - 1)
      mm_.relaxed->plan_step(mm_thread(w, __builtin_ctz(m)), plan.early_pos[i], plan.early_hidden[i],
                             plan.early_before_write[i]);
    run_one(w, g.mask, fn, g.func, plan.early[i]);
  }
  for (uint32_t m = lanes; m; m &= m - 1) mm_.relaxed->end_early(mm_thread(w, __builtin_ctz(m)));
  now_.loc = (g.func << 20) | g.pc;
  if (stop_) return true;
  if (listen_.watched)
    listen_.list.memory_model(w, -1, trace::MemoryModelKind::LateLoad, g.mask,
                              fn.code[plan.early[plan.n_early - 1]].user_line, 0);
  w.lb_lanes = g.mask;
  // On half the plans the held-back part waits, so that other threads' instructions can come in
  // between: while other lanes of the warp on other paths can run, the lanes that ran early wait
  // 1 to 16 of the warp's steps, as a split's lanes wait (ItsModel::split); else the scheduler
  // passes the warp over for up to 16 steps per resident warp, at most 512 (KernelRun::step_loop).
  if (!w.converged && (w.ready_mask & ~g.mask & ~w.split_hold)) {
    const uint64_t d = mm_.relaxed->random(32);
    if (d >= 16) {
      w.split_hold |= g.mask;
      w.split_hold_steps = std::max<uint32_t>(w.split_hold_steps, 1 + uint32_t(d - 16));
    }
  } else if (mm_.relaxed->random(2)) {
    w.lb_hold_until = clock_.steps + 1 + mm_.relaxed->random(std::min<uint64_t>(16 * warps_.size(), 512));
  }
  mm_.relaxed->note_late_load();
  w.lb_func = g.func;
  w.lb_pc = g.pc;
  w.lb_resume = plan.resume;
  w.lb_n_late = plan.n_late;
  w.lb_late_acquire = uint8_t(plan.late_acquire);
  for (uint32_t i = 0; i < plan.n_late; ++i) {
    w.lb_late[i] = plan.late[i];
    w.lb_late_pos[i] = plan.late_pos[i];
  }
  return true;
}

// One instruction of a load-buffering plan for the lanes `mask` (their guard applied): a load, a
// store, an atom or a computation.
void KernelRun::run_one(Warp& w, uint32_t mask, const ptx::Function& fn, uint32_t func, uint32_t pc) {
  const ptx::Instr& J = fn.code[pc];
  const uint32_t a = guard_mask(w, mask, J);
  clock_.instrs += __builtin_popcount(a);
  now_.loc = (func << 20) | pc;
  if (!a) return;
  switch (J.op) {
    case Op::St: exec_st(w, a, fn, J); break;
    case Op::Ld:
    case Op::Ldu: exec_ld(w, a, fn, J); break;
    case Op::Fence:
      if (listen_.any) listen_.list.fence(w, a, J);
      relaxed_fence(w, a, J);
      break;
    case Op::Atom:
    case Op::Red: exec_atom(w, a, J); break;
    default:
      if (J.fast)
        kFastHandlers[J.fast](w, a, J);
      else
        exec_alu(w, a, J);
  }
}

// The held-back part of a plan: the load (and what waits for it) for the lanes that ran early;
// lanes of the group that did not (they came to the load since) run the load alone.
template <class M>
void KernelRun::run_late(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t early = w.lb_lanes & g.mask;
  const uint32_t others = g.mask & ~early;
  const uint32_t lanes = warp_is_unit(M::kKind) ? early & -early : early;
  for (uint32_t m = lanes; m; m &= m - 1)
    mm_.relaxed->begin_late(mm_thread(w, __builtin_ctz(m)), ptx::Scope(w.lb_late_acquire));
  for (uint32_t i = 0; i < w.lb_n_late && !stop_; ++i) {
    for (uint32_t m = lanes; m; m &= m - 1) mm_.relaxed->plan_step(mm_thread(w, __builtin_ctz(m)), w.lb_late_pos[i]);
    run_one(w, early, fn, g.func, w.lb_late[i]);
  }
  for (uint32_t m = lanes; m; m &= m - 1) mm_.relaxed->end_late(mm_thread(w, __builtin_ctz(m)));
  now_.loc = (g.func << 20) | g.pc;
  if (stop_) return;
  if (others) run_one(w, others, fn, g.func, g.pc);
  if (stop_) return;
  w.lb_lanes &= ~early;
  if (!others) {
    M::skip_to(*this, w, g, w.lb_resume);
  } else {
    M::materialize(w);
    for (uint32_t m = g.mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      w.lanes[lane].pc = (early >> lane & 1) ? w.lb_resume : g.pc + 1;
    }
    w.converged = false;
  }
}

template <class M>
inline void KernelRun::exec_instr(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t act = guard_mask(w, g.mask, I);
  clock_.instrs += __builtin_popcount(act);
  now_.loc = (g.func << 20) | g.pc;
  switch (I.op) {
    case Op::Bra: M::branch(*this, w, g, act, static_cast<uint32_t>(I.src[0].imm)); return;
    case Op::Brx: {
      // brx.idx index, table: lanes that pick different entries leave in separate groups.
      if (!act) {
        M::advance(*this, w, g, g.mask);
        return;
      }
      const int first_lane = __builtin_ctz(act);
      const uint64_t t = static_cast<uint64_t>(I.src[1].imm);
      if (t >= fn.branch_tables.size()) {
        fault(w, first_lane, I, LaunchStatus::Fault, "brx.idx without a branch table", "");
        return;
      }
      const auto& table = fn.branch_tables[t];
      uint32_t remaining = act;
      while (remaining) {
        const int lane0 = __builtin_ctz(remaining);
        const uint64_t idx = operand(w, lane0, I.src[0]);
        if (idx >= table.size()) {
          fault(w, lane0, I, LaunchStatus::Fault, "brx.idx index out of range",
                fmt::format("index {} into a table of {} labels", idx, table.size()));
          return;
        }
        uint32_t same = 0;
        FOR_LANES(remaining)
        if (operand(w, lane, I.src[0]) == idx) same |= 1u << lane;
        END_LANES
        if (same == act) {
          M::branch(*this, w, g, act, table[idx]);
          return;
        }
        if (!M::branch_apart(*this, w, lane0, same, table[idx], I)) return;
        remaining &= ~same;
      }
      return;
    }
    case Op::Call: call<M>(w, g, act, fn, I); return;
    case Op::Ret:
      if (act != g.mask) M::advance(*this, w, g, g.mask & ~act);
      if (act) ret<M>(w, g, act);
      return;
    case Op::Exit:
      if (act != g.mask) M::advance(*this, w, g, g.mask & ~act);
      if (act) exit_lanes<M>(w, g, act);
      return;
    case Op::Trap:
      if (act) {
        fault(w, __builtin_ctz(act), I, LaunchStatus::Trap, "trap instruction executed",
              "the kernel executed trap (asm(\"trap;\") or __trap())");
        return;
      }
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Brkpt:
    case Op::Nop:
    case Op::Prefetch:
    case Op::Pmevent: M::advance(*this, w, g, g.mask); return;
    case Op::Membar:
    case Op::Fence:
      if (act && listen_.any) listen_.list.fence(w, act, I);
      if (act && mm_.relaxed) relaxed_fence(w, act, I);
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Nanosleep:
      clock_.sm_steps[w.cta->sm] += 1;
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Bar:
      if (!act) {
        M::advance(*this, w, g, g.mask);
        return;
      }
      block_at_barrier<M>(w, g, act, I);
      return;
    case Op::Activemask:
      exec_warp_op(w, act, I);
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Ld:
    case Op::Ldu:
      if (mm_.relaxed) {
        if (w.lb_lanes & g.mask && w.lb_func == g.func && w.lb_pc == g.pc) {
          run_late<M>(w, g, fn, I);  // the load that was held back, and what waited for it
          return;
        }
        if (act == g.mask && reorder_load<M>(w, g, fn, I)) return;  // the load runs at the next step
      }
      exec_ld(w, act, fn, I);
      break;
    case Op::St: exec_st(w, act, fn, I); break;
    case Op::CpAsync:
      if (act) exec_cp_async(w, act, I);
      break;
    case Op::CpAsyncCommit:
    case Op::CpAsyncWait:
      if (act) exec_cp_async_group(w, act, I);
      break;
    case Op::CpAsyncMbarArrive:
      if (act) exec_cp_async_mbar_arrive(w, act, I);
      break;
    case Op::Mbarrier:
      if (act) {
        const uint32_t stalled = exec_mbarrier(w, act, I);
        if (stalled && stalled == g.mask && !stop_) {
          // The waiting lanes polled an incomplete phase again and nothing anyone could see has
          // changed since: they stay at the wait, a spin at this instruction (the progress checks
          // see unchanged registers, and the mbarrier as the word they poll).
          if (!w.converged || g.mask != w.ready_mask) w.yielded_mask |= g.mask;
          if (listen_.list.progress().suspicious()) check_progress(w, g.mask, g.func, g.pc);
          return;
        }
      }
      break;
    case Op::Unsupported:
      if (act) {
        exec_unsupported(w, act, I);
        return;
      }
      break;
    case Op::Atom:
    case Op::Red:
      if (mm_.relaxed) {
        // An atom's (or red's) read may take effect after later stores too (load buffering).
        if (w.lb_lanes & g.mask && w.lb_func == g.func && w.lb_pc == g.pc) {
          run_late<M>(w, g, fn, I);
          return;
        }
        if (act == g.mask && reorder_load<M>(w, g, fn, I)) return;
      }
      exec_atom(w, act, I);
      break;
    default:
      if (ptx::is_warp_synchronous(I.op)) {
        if (!act) {
          M::advance(*this, w, g, g.mask);
          return;
        }
        M::warp_sync(*this, w, g, act, fn, I);
        return;
      }
      if (act) exec_alu(w, act, I);
      break;
  }
  if (!stop_) M::advance(*this, w, g, g.mask);
}

// Runs the group's instruction (the step loop's one call per step); returns its Instr::exec flags
// (0 when it fell off the function). The common arithmetic forms take their handler right here;
// everything else goes through exec_instr, with lane PCs written into the lanes first for the
// instructions that look at lanes one by one (see KernelRun::materialize).
template <class M>
uint8_t KernelRun::execute(Warp& w, const Group& g) {
  const CodeRef code = code_[g.func];
  if (__builtin_expect(g.pc >= code.size, 0)) {
    fall_off<M>(w, g);
    return 0;
  }
  const ptx::Instr& I = code.code[g.pc];
  if (I.fast) {  // plain, private, never faults (see fast_handler_index)
    const uint32_t act = guard_mask(w, g.mask, I);
    clock_.instrs += __builtin_popcount(act);
    now_.loc = (g.func << 20) | g.pc;
    if (act) kFastHandlers[I.fast](w, act, I);
    M::advance(*this, w, g, g.mask);
    return I.exec;
  }
  execute_general<M>(w, g, I);
  return I.exec;
}

// Falling off the end of a function behaves as ret.
template <class M>
void KernelRun::fall_off(Warp& w, const Group& g) {
  for (uint32_t m = g.mask; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.func = g.func;
    L.pc = g.pc;
  }
  now_.lane_pcs_live = true;
  ret<M>(w, g, g.mask);
  now_.lane_pcs_live = false;
  M::lane_pcs_written(w);
}

template <class M>
void KernelRun::execute_general(Warp& w, const Group& g, const ptx::Instr& I) {
  const ptx::Function& fn = M_.functions[g.func];
  const bool plain = I.exec & ptx::Instr::kExecPlain;  // (branch() keeps lane PCs itself)
  if (!plain) {
    for (uint32_t m = g.mask; m; m &= m - 1) {
      Lane& L = w.lanes[__builtin_ctz(m)];
      L.func = g.func;
      L.pc = g.pc;
    }
    now_.lane_pcs_live = true;
  }
  exec_instr<M>(w, g, fn, I);
  if (!plain) {
    now_.lane_pcs_live = false;
    M::lane_pcs_written(w);
  }
}
template uint8_t KernelRun::execute<LockstepModel>(Warp&, const Group&);
template uint8_t KernelRun::execute<ItsModel>(Warp&, const Group&);

}  // namespace synclab::sim
