// Control flow and barriers, the parts both warp models share: calls (frames, arguments, return
// values), returns, exits, and __syncthreads()/bar.* (arrival counts, bar.red, release). What a
// model does with the lanes afterwards (its stack, its groups) is the model's: each function here
// is a template over the model (warp_model.h) and hands over to it.
#include <fmt/format.h>

#include <cstring>

#include "sim/exec/instr/operands.h"
#include "sim/exec/its_model.h"
#include "sim/exec/lockstep_model.h"

namespace synclab::sim {

using ptx::Op;
using ptx::Operand;

template <class M>
void KernelRun::call(Warp& w, const Group& g, uint32_t act, const ptx::Function& fn, const ptx::Instr& I) {
  if (!act) {
    M::advance(*this, w, g, g.mask);
    return;
  }
  const ptx::CallSite& cs = fn.calls[I.call];
  if (cs.callee != Operand::kNoReg && cs.callee < M_.functions.size()) {
    call_one<M>(w, g, act, fn, I, cs.callee, true);
    return;
  }
  // Indirect call: lanes that hold different function pointers call different functions, one
  // group after the other (under lockstep each group gets its own stack entry).
  if (act != g.mask) M::advance(*this, w, g, g.mask & ~act);
  uint32_t remaining = act;
  bool first_group = true;
  while (remaining && !stop_) {
    const int first = __builtin_ctz(remaining);
    const uint64_t target = w.regp[first][cs.target_reg];
    uint32_t same = 0;
    for (uint32_t m = remaining; m; m &= m - 1)
      if (w.regp[__builtin_ctz(m)][cs.target_reg] == target) same |= 1u << __builtin_ctz(m);
    const uint64_t index = target - kFunctionWindow;
    if (target < kFunctionWindow || index >= M_.functions.size()) {
      fault(w, first, I, LaunchStatus::Fault, "indirect call through an invalid function pointer",
            fmt::format("target value 0x{:x} is not the address of a device function{}", target,
                        target == 0 ? " (a null function pointer)" : ""));
      return;
    }
    Group sub = g;
    sub.mask = first_group && same == act ? g.mask : same;
    call_one<M>(w, sub, same, fn, I, static_cast<uint32_t>(index), first_group);
    first_group = false;
    remaining &= ~same;
  }
}

template <class M>
void KernelRun::call_one(Warp& w, const Group& g, uint32_t act, const ptx::Function& fn, const ptx::Instr& I,
                         uint32_t callee_index, bool set_return_pc) {
  const ptx::CallSite& cs = fn.calls[I.call];
  const ptx::Function& callee = M_.functions[callee_index];
  if (callee.is_extern || callee.code.empty()) {
    exec_builtin_call(w, act, fn, callee, cs, I);
    if (!stop_) M::advance(*this, w, g, g.mask);
    return;
  }
  if (act != g.mask) M::advance(*this, w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    if (L.frames.size() >= 1024) {
      fault(w, lane, I, LaunchStatus::Fault, "call stack overflow",
            fmt::format("more than 1024 nested calls of {} (unbounded recursion?)", callee.name));
      return;
    }
    CallFrame f{g.func, g.pc + 1, I.call, L.reg_base, L.local_base, L.param_base};
    const uint32_t new_reg = L.reg_base + static_cast<uint32_t>(fn.regs.size()) + 1;
    const uint32_t new_local = static_cast<uint32_t>(align_up(L.local_base + fn.local_bytes, 16));
    const uint32_t new_param = static_cast<uint32_t>(align_up(L.param_base + fn.param_bytes, 16));
    if (w.regs.size() < (new_reg + callee.regs.size() + 1) * 32) {
      w.regs.resize((new_reg + callee.regs.size() + 1) * 32, 0);
      for (uint32_t k = w.present_mask; k; k &= k - 1) w.sync_regp(__builtin_ctz(k));  // storage moved
    }
    if (L.local.size() < new_local + callee.local_bytes)
      L.local.resize(align_up(new_local + callee.local_bytes, 16), 0);
    if (L.params.size() < new_param + callee.param_bytes)
      L.params.resize(align_up(new_param + callee.param_bytes, 16), 0);
    // Copy the arguments from the caller's call-sequence params into the callee's params.
    for (size_t i = 0; i < callee.params.size() && i < cs.arg_ops.size(); ++i) {
      const ptx::Symbol& dst = M_.symbols[callee.params[i]];
      const Operand& a = cs.arg_ops[i];
      uint8_t* out = L.params.data() + new_param + dst.offset;
      if (a.kind == Operand::Kind::Symbol || a.kind == Operand::Kind::Addr) {
        const ptx::Symbol& src = M_.symbols[a.symbol];
        uint64_t n = std::min(src.size, dst.size);
        std::memcpy(out, L.params.data() + L.param_base + src.offset, n);
      } else {
        uint64_t v = operand(w, lane, a);
        std::memcpy(out, &v, std::min<uint64_t>(dst.size, 8));
      }
    }
    L.frames.push_back(f);
    L.reg_base = new_reg;
    L.local_base = new_local;
    L.param_base = new_param;
    L.func = callee_index;
    L.pc = 0;
    w.sync_regp(lane);
  }
  w.update_uniform_base();
  M::called(w, g, act, callee_index, set_return_pc);
}

template <class M>
void KernelRun::ret(Warp& w, const Group& g, uint32_t act) {
  uint32_t exiting = 0;
  for (uint32_t m = act; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    if (L.frames.empty()) {
      exiting |= 1u << lane;
      continue;
    }
    CallFrame f = L.frames.back();
    L.frames.pop_back();
    const ptx::Function& callee = M_.functions[L.func];
    const ptx::Function& caller = M_.functions[f.func];
    const ptx::CallSite& cs = caller.calls[f.call_site];
    // Return values: callee's return params -> caller's call-sequence params.
    for (size_t i = 0; i < callee.rets.size() && i < cs.rets.size(); ++i) {
      const ptx::Symbol& src = M_.symbols[callee.rets[i]];
      const ptx::Symbol& dst = M_.symbols[cs.rets[i]];
      std::memcpy(L.params.data() + f.param_base + dst.offset, L.params.data() + L.param_base + src.offset,
                  std::min(src.size, dst.size));
    }
    L.reg_base = f.reg_base;
    L.local_base = f.local_base;
    L.param_base = f.param_base;
    L.func = f.func;
    L.pc = f.return_pc;
    w.sync_regp(lane);
  }
  w.update_uniform_base();
  if (exiting) {
    exit_lanes<M>(w, g, exiting);
    act &= ~exiting;
  }
  if (!act) return;
  M::returned(w, act);
}

template <class M>
void KernelRun::exit_lanes(Warp& w, const Group& g, uint32_t mask) {
  Cta& c = *w.cta;
  if (async_.pending) {  // cp.async copies still pending complete before their thread exits
    complete_async_at_exit(w, mask);
    if (stop_) return;
  }
  for (uint32_t m = mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    Lane& L = w.lanes[lane];
    L.state = LaneState::Exited;
    L.pc = ptx::Function::kExitPc;
    --c.live_threads;
  }
  w.exited_mask |= mask;
  w.ready_mask &= ~mask;
  listen_.list.lanes_exited(w, mask);
  w.update_uniform_base();
  w.yielded_mask &= ~mask;
  M::exited(w, mask);
  // Barriers expecting every thread of the block now expect fewer.
  for (uint32_t id = 0; id < 16; ++id)
    if (c.barriers[id].arrived) try_release_barrier<M>(c, id);
  M::lanes_left(*this, w);
}

// Barriers ----------------------------------------------------------------------------------

template <class M>
void KernelRun::block_at_barrier(Warp& w, const Group& g, uint32_t act, const ptx::Instr& I) {
  Cta& c = *w.cta;
  const int first = __builtin_ctz(act);
  uint64_t id64 = operand(w, first, I.src[0]);
  if (id64 > 15) {
    fault(w, first, I, LaunchStatus::Fault, "invalid barrier number", fmt::format("barrier {} (valid: 0-15)", id64));
    return;
  }
  const uint32_t id = static_cast<uint32_t>(id64);
  uint32_t count = 0;
  // bar.sync a{, b}; bar.red.op.pred p, a{, b}, {!}c: the optional thread count b is src[1]
  // (Kind::None when absent); bar.red's predicate is the last source.
  if (I.src[1].kind != Operand::Kind::None) {
    count = static_cast<uint32_t>(operand(w, first, I.src[1]));
    if (count == 0 || count % 32 != 0 || count > c.threads + 31) {
      fault(w, first, I, LaunchStatus::Fault, "invalid barrier thread count",
            fmt::format("bar {} with {} threads: the count must be a non-zero multiple of 32 not above the "
                        "block size ({})",
                        id, count, c.threads));
      return;
    }
  }
  BarrierState& b = c.barriers[id];
  if (b.arrived == 0) b.expected = count;
  b.arrived += __builtin_popcount(act);
  if (mm_.relaxed) {
    // Under lockstep the warp is one thread of the memory model: it arrives once.
    for (uint32_t m = warp_is_unit(M::kKind) ? act & -act : act; m; m &= m - 1)
      mm_.relaxed->barrier_arrive(mm_thread(w, __builtin_ctz(m)), id);
  }
  if (listen_.any) listen_.list.barrier_arrive(w, id, act, BarrierArrival{I, first, count, b, warp_is_unit(M::kKind)});
  if (I.bar == ptx::BarKind::Red) {
    for (uint32_t m = act; m; m &= m - 1) {
      bool p = operand(w, __builtin_ctz(m), I.src[I.nsrc - 1]) & 1;
      b.red_popc += p;
      b.red_and = b.red_and && p;
      b.red_or = b.red_or || p;
    }
  }
  if (I.bar == ptx::BarKind::Arrive) {
    M::advance(*this, w, g, g.mask);
    try_release_barrier<M>(c, id);
    return;
  }
  if (act != g.mask) M::advance(*this, w, g, g.mask & ~act);
  for (uint32_t m = act; m; m &= m - 1) {
    Lane& L = w.lanes[__builtin_ctz(m)];
    L.state = LaneState::AtBarrier;
    L.barrier = static_cast<uint8_t>(id);
  }
  if (!w.bar_mask) {
    w.bar_id = id;
    w.bar_func = g.func;
    w.bar_pc = g.pc;
  } else if (w.bar_id != id || w.bar_func != g.func || w.bar_pc != g.pc) {
    w.bar_id = Warp::kMixedBarrier;
  }
  w.bar_mask |= act;
  w.ready_mask &= ~act;
  M::blocked(w);
  try_release_barrier<M>(c, id);
}

template <class M>
void KernelRun::try_release_barrier(Cta& c, uint32_t id) {
  BarrierState& b = c.barriers[id];
  const uint32_t needed = b.expected ? b.expected : c.live_threads;
  if (b.arrived < needed || b.arrived == 0) return;
  const BarrierState done = b;
  b = BarrierState{};
  std::vector<uint32_t>* waiters = nullptr;
  if (listen_.any || mm_.relaxed) {
    waiters = &scratch_.tids;
    waiters->clear();
  }
  auto red_value = [&](const ptx::Instr& I) -> uint64_t {
    switch (I.barred) {
      case ptx::BarRedOp::Popc: return done.red_popc;
      case ptx::BarRedOp::And: return done.red_and;
      case ptx::BarRedOp::Or: return done.red_or;
      default: return 0;
    }
  };
  for (Warp& w : c.warps) {
    uint32_t released = 0;
    if (&w != now_.warp) M::materialize(w);
    // Where the released lanes go on (all at one PC, the usual case, or not).
    uint32_t rfunc = ~0u, rpc = ~0u;
    bool one_pc = true;
    if (w.bar_mask && w.bar_id == id) {
      // Every lane of the warp that waits at a barrier waits at this one, at one instruction.
      const ptx::Instr& I = M_.functions[w.bar_func].code[w.bar_pc];
      const bool red = I.bar == ptx::BarKind::Red && I.ndst > 0;
      for (uint32_t m = w.bar_mask; m; m &= m - 1) {
        Lane& L = w.lanes[__builtin_ctz(m)];
        if (red) L.R()[I.dst[0].reg] = red_value(I);
        L.state = LaneState::Ready;
        ++L.pc;
        if (waiters) waiters->push_back(L.tid_linear);
      }
      released = w.bar_mask;
      rfunc = w.bar_func;
      rpc = w.bar_pc + 1;
      w.bar_mask = 0;
    }
    const ptx::Instr* I_prev = nullptr;
    uint32_t prev_func = ~0u, prev_pc = ~0u;
    for (uint32_t m = released ? 0 : w.present_mask & ~w.exited_mask & ~w.ready_mask; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      Lane& L = w.lanes[lane];
      if (L.state != LaneState::AtBarrier || L.barrier != id) continue;
      if (L.func != prev_func || L.pc != prev_pc) {
        prev_func = L.func;
        prev_pc = L.pc;
        I_prev = &M_.functions[L.func].code[L.pc];
      }
      const ptx::Instr& I = *I_prev;
      if (I.bar == ptx::BarKind::Red && I.ndst > 0) L.R()[I.dst[0].reg] = red_value(I);
      L.state = LaneState::Ready;
      ++L.pc;
      if (!released) {
        rfunc = L.func;
        rpc = L.pc;
      } else if (L.func != rfunc || L.pc != rpc) {
        one_pc = false;
      }
      released |= 1u << lane;
      if (waiters) waiters->push_back(L.tid_linear);
    }
    if (!released) continue;
    if (w.bar_mask & released) {
      // Some lanes were released and others still wait (at another barrier): the summary of
      // where they wait is no longer known.
      w.bar_mask &= ~released;
      w.bar_id = Warp::kMixedBarrier;
    }
    const uint32_t ready_before = w.ready_mask;
    w.ready_mask |= released;
    M::released(w, released, ready_before, one_pc, rfunc, rpc);
  }
  if (mm_.relaxed) {
    // Everyone released sees what every arriving thread knew (bar.sync orders memory in the block).
    std::vector<uint64_t> ids;
    const uint64_t base = c.linear * shape_.threads_per_block;
    for (uint32_t t : *waiters) {
      const uint64_t id = base + (warp_is_unit(M::kKind) ? t / 32 * 32 : t);
      if (ids.empty() || ids.back() != id) ids.push_back(id);
    }
    mm_.relaxed->barrier_release(c.linear, id, ids, done.expected == 0, !warp_is_unit(M::kKind));
  }
  // (Nobody but the progress detector listens when no thread list was kept: it needs none.)
  static const std::vector<uint32_t> kNone;
  listen_.list.barrier_release(c, id, done.arrived, waiters ? *waiters : kNone);
}

#define SYNCLAB_CONTROL_FLOW_FOR(M)                                                                         \
  template void KernelRun::call<M>(Warp&, const Group&, uint32_t, const ptx::Function&, const ptx::Instr&); \
  template void KernelRun::ret<M>(Warp&, const Group&, uint32_t);                                           \
  template void KernelRun::exit_lanes<M>(Warp&, const Group&, uint32_t);                                    \
  template void KernelRun::block_at_barrier<M>(Warp&, const Group&, uint32_t, const ptx::Instr&);
SYNCLAB_CONTROL_FLOW_FOR(LockstepModel)
SYNCLAB_CONTROL_FLOW_FOR(ItsModel)
#undef SYNCLAB_CONTROL_FLOW_FOR

}  // namespace synclab::sim
