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

namespace synclab::sim {

using namespace instr;
using ptx::reads_reg;
using ptx::writes_reg;

namespace {

// The registers a load writes.
std::vector<uint32_t> loaded_regs(const ptx::Instr& L) {
  std::vector<uint32_t> regs;
  const Operand& d = L.dst[0];
  if (d.kind == Operand::Kind::Reg) regs.push_back(d.reg);
  if (d.kind == Operand::Kind::Vector)
    for (int k = 0; k < d.count; ++k)
      if (d.vec[k] != Operand::kNoReg) regs.push_back(d.vec[k]);
  return regs;
}
bool weak_order(ptx::Sem s) { return s == ptx::Sem::None || s == ptx::Sem::Weak || s == ptx::Sem::Relaxed; }
bool shared_or_global(ptx::Space s) {
  return s == ptx::Space::Global || s == ptx::Space::Shared || s == ptx::Space::Generic;
}

}  // namespace

// Load buffering (relaxed memory model): a relaxed or plain load may take effect after a later
// store of its thread when nothing orders them (PTX keeps no load before a later independent
// store; only dependencies are kept, so no value comes out of thin air). Here: the load at I, then
// at most four instructions that only compute (reading nothing the load writes, writing nothing it
// reads), then a relaxed or plain store that uses nothing the load writes. When the seed says so
// (under its; pre-Volta lockstep is outside the PTX model), this step runs the instructions up to
// the store, and the load runs at the group's next step, after which it goes on after the store.
// True when this step was such an early run (the group stays at the load).
// The store that the load at fn.code[pc] may let go first (0: none); the code alone decides.
uint32_t KernelRun::store_after_load(const ptx::Function& fn, uint32_t pc) const {
  const ptx::Instr& I = fn.code[pc];
  const std::vector<uint32_t> dst = loaded_regs(I);
  const uint32_t addr_reg = I.src[0].kind == Operand::Kind::Addr ? I.src[0].reg : Operand::kNoReg;
  for (uint32_t j = pc + 1; j < fn.code.size() && j <= pc + 5; ++j) {
    const ptx::Instr& J = fn.code[j];
    for (uint32_t r : dst)
      if (reads_reg(J, r)) return 0;
    if (J.op == Op::St) return weak_order(J.sem) && shared_or_global(J.space) ? j : 0;
    const bool computes = (J.exec & ptx::Instr::kExecPrivate) && (J.exec & ptx::Instr::kExecPlain) && J.op != Op::Ld &&
                          J.op != Op::St && J.op != Op::Bra;
    if (!computes || writes_reg(J, addr_reg) || (I.guard != Operand::kNoReg && writes_reg(J, I.guard))) return 0;
    for (uint32_t r : dst)
      if (writes_reg(J, r)) return 0;
  }
  return 0;
}

bool KernelRun::reorder_load(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  if (cfg_.model != WarpModel::Its || w.lb_lanes || !weak_order(I.sem) || !shared_or_global(I.space) || I.op != Op::Ld)
    return false;
  // Per instruction, computed once: 0 not yet, 1 no store, else the store's index + 2.
  std::vector<uint32_t>& cache = lb_store_[g.func];
  if (cache.empty()) cache.assign(fn.code.size(), 0);
  if (!cache[g.pc]) {
    const uint32_t s = store_after_load(fn, g.pc);
    cache[g.pc] = s ? s + 2 : 1;
  }
  const uint32_t store = cache[g.pc] - (cache[g.pc] >= 2 ? 2 : 1);
  if (!store || relaxed_->random(2) != 0) return false;
  for (uint32_t j = g.pc + 1; j <= store && !stop_; ++j) {
    const ptx::Instr& J = fn.code[j];
    const uint32_t a = guard_mask(w, g.mask, J);
    instrs_ += __builtin_popcount(a);
    cur_loc_ = (g.func << 20) | j;
    if (!a) continue;
    if (J.op == Op::St)
      exec_st(w, a, fn, J);
    else if (J.fast)
      kFastHandlers[J.fast](w, a, J);
    else
      exec_alu(w, a, J);
  }
  cur_loc_ = (g.func << 20) | g.pc;
  if (observer_) observer_->memory_model(w, -1, trace::MemoryModelKind::LateLoad, g.mask, fn.code[store].user_line, 0);
  w.lb_lanes = g.mask;
  relaxed_->note_late_load();
  w.lb_func = g.func;
  w.lb_pc = g.pc;
  w.lb_store = store;
  return true;
}

template <class M>
inline void KernelRun::exec_instr(Warp& w, const Group& g, const ptx::Function& fn, const ptx::Instr& I) {
  const uint32_t act = guard_mask(w, g.mask, I);
  instrs_ += __builtin_popcount(act);
  cur_loc_ = (g.func << 20) | g.pc;
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
      if (act) check_fence(w, act, I);
      if (act && relaxed_) relaxed_fence(w, act, I);
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Nanosleep:
      sm_steps_[w.cta->sm] += 1;
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Bar:
      if (!act) {
        M::advance(*this, w, g, g.mask);
        return;
      }
      block_at_barrier<M>(w, g, act, I);
      return;
    case Op::BarWarpSync:
    case Op::Shfl:
    case Op::Vote:
    case Op::Match:
    case Op::Redux:
    case Op::Elect:
      if (!act) {
        M::advance(*this, w, g, g.mask);
        return;
      }
      M::warp_sync(*this, w, g, act, fn, I);
      return;
    case Op::Activemask:
      exec_warp_op(w, act, I);
      M::advance(*this, w, g, g.mask);
      return;
    case Op::Ld:
    case Op::Ldu:
      if (relaxed_) {
        if (w.lb_lanes & g.mask && w.lb_func == g.func && w.lb_pc == g.pc) {
          // The load that was put off: now it runs, and its lanes go on after the store they ran.
          exec_ld(w, act, fn, I);
          if (stop_) return;
          const uint32_t early = w.lb_lanes & g.mask;
          w.lb_lanes &= ~early;
          if (early == g.mask) {
            M::skip_to(*this, w, g, w.lb_store + 1);
          } else {
            M::materialize(w);
            for (uint32_t m = g.mask; m; m &= m - 1) {
              const int lane = __builtin_ctz(m);
              w.lanes[lane].pc = (early >> lane & 1) ? w.lb_store + 1 : g.pc + 1;
            }
            w.converged = false;
          }
          return;
        }
        if (act == g.mask && reorder_load(w, g, fn, I)) return;  // the load runs at the next step
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
          if (hang_.suspicious(steps_)) check_progress(w, g.mask, g.func, g.pc);
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
    case Op::Red: exec_atom(w, act, I); break;
    default:
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
    instrs_ += __builtin_popcount(act);
    cur_loc_ = (g.func << 20) | g.pc;
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
  lane_pcs_live_ = true;
  ret<M>(w, g, g.mask);
  lane_pcs_live_ = false;
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
    lane_pcs_live_ = true;
  }
  exec_instr<M>(w, g, fn, I);
  if (!plain) {
    lane_pcs_live_ = false;
    M::lane_pcs_written(w);
  }
}
template uint8_t KernelRun::execute<LockstepModel>(Warp&, const Group&);
template uint8_t KernelRun::execute<ItsModel>(Warp&, const Group&);

}  // namespace synclab::sim
