// What every file of instruction semantics shares: the lane loop, the row helpers for warps whose
// lanes share one frame base, and reading an instruction's operands and guard predicate (inline:
// every instruction reads them).
//
// The instruction semantics, one file per section:
//   operands.h            operands, addresses, the guard predicate (this file)
//   special_registers.cpp %tid, %laneid, %clock and the other special registers
//   memory.cpp            address translation, loads, stores, atomics
//   alu.cpp               arithmetic, logic, comparison, conversion (the general path)
//   alu_fast.cpp          the fast paths for the common arithmetic forms, and their handlers
//   warp_ops.cpp          shfl, vote, match, redux, activemask
//   builtins.cpp          vprintf, __assertfail, malloc, free
//   dispatch.cpp          one instruction for a group of lanes, under a warp model
// Control flow, barriers and warp synchronization belong to the warp models
// (sim/exec/lockstep_model.h, sim/exec/its_model.h) and sim/exec/control_flow.cpp.
#pragma once

#include <emmintrin.h>

#include <cstdint>

#include "sim/exec/kernel_run.h"

namespace synclab::sim {

using ptx::AtomOp;
using ptx::Cmp;
using ptx::Op;
using ptx::Operand;
using ptx::Rounding;
using ptx::Space;
using ptx::SReg;
using ptx::Type;

#define FOR_LANES(mask)                          \
  for (uint32_t m_ = (mask); m_; m_ &= m_ - 1) { \
    const int lane = __builtin_ctz(m_);          \
    Lane& L = w.lanes[lane];                     \
    const LaneRegs R = w.regp[lane];             \
    (void)L;                                     \
    (void)R;
#define END_LANES }

namespace instr {
// Row helpers for warps whose lanes share one frame base (Warp::row): 32 lanes, two per SSE2
// register.
alignas(16) constexpr uint64_t kPairMask[4][2] = {{0, 0}, {~0ull, 0}, {0, ~0ull}, {~0ull, ~0ull}};

// D[l] = S[l] for the lanes in act, without a branch per lane.
inline void blend_row(uint64_t* D, const uint64_t* S, uint32_t act) {
  for (int l = 0; l < 32; l += 2) {
    const __m128i m = _mm_load_si128(reinterpret_cast<const __m128i*>(kPairMask[(act >> l) & 3]));
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(S + l));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(D + l));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(D + l), _mm_or_si128(_mm_and_si128(m, s), _mm_andnot_si128(m, d)));
  }
}
// Bit l = bit 0 of P[l] (a predicate row).
inline uint32_t row_bits(const uint64_t* P) {
  uint32_t lo = 0, hi = 0;
  for (int l = 0; l < 32; l += 4) {
    const __m128i a = _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(P + l)), 63);
    const __m128i b = _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(P + l + 2)), 63);
    lo |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(a))) << l;
    hi |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(b))) << (l + 2);
  }
  return lo | hi;
}
}  // namespace instr

// The handlers of the common arithmetic forms, indexed by Instr::fast (alu_fast.cpp).
using FastHandler = void (*)(Warp&, uint32_t, const ptx::Instr&);
extern const FastHandler* const kFastHandlers;

inline uint64_t KernelRun::address(Lane& L, const Operand& o) const {
  uint64_t a = static_cast<uint64_t>(o.imm);
  if (o.reg != Operand::kNoReg) a += L.R()[o.reg];
  switch (o.base) {
    case Operand::Base::LocalFrame: a += L.local_base; break;
    case Operand::Base::ParamFrame: a += L.param_base; break;
    case Operand::Base::DynamicShared: a += shape_.dynamic_shared_base; break;
    default: break;
  }
  return a;
}

inline uint64_t KernelRun::operand(Warp& w, int lane, const Operand& o) {
  Lane& L = w.lanes[lane];
  switch (o.kind) {
    case Operand::Kind::Reg: {
      uint64_t v = w.regp[lane][o.reg];
      return o.negate ? (v & 1) ^ 1 : v;
    }
    case Operand::Kind::Imm: return static_cast<uint64_t>(o.imm);
    case Operand::Kind::SpecialReg: return special(w, lane, o.sreg);
    case Operand::Kind::Symbol:
    case Operand::Kind::Addr: return address(L, o);
    case Operand::Kind::Func: return kFunctionWindow + static_cast<uint64_t>(o.imm);
    default: return 0;
  }
}

inline uint32_t KernelRun::guard_mask(Warp& w, uint32_t mask, const ptx::Instr& I) {
  if (I.guard == Operand::kNoReg) return mask;
  uint32_t act = 0;
  const uint32_t g = I.guard;
  if (w.uniform_base != Warp::kMixedBase) {
    // One row: bit 0 of each lane's predicate, all 32 lanes at once.
    act = instr::row_bits(w.row(g));
    return mask & (I.guard_negated ? ~act : act);
  }
  const uint64_t want = I.guard_negated ? 0 : 1;
  for (uint32_t m = mask; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    act |= uint32_t((w.regp[lane][g] & 1) == want) << lane;
  }
  return act;
}

}  // namespace synclab::sim
