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
    case Op::Ldu: exec_ld(w, act, fn, I); break;
    case Op::St: exec_st(w, act, fn, I); break;
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
