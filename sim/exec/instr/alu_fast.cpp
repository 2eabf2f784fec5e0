// Instruction semantics, the fast paths: the common arithmetic forms computed a warp row at a time
// (fast_alu), and a handler per form that the dispatcher calls directly (Instr::fast). Each does
// exactly what the general path in alu.cpp does for its form; SYNCLAB_FAST=0 turns them off.
//
// Where things are (the sections below, in this order):
//   Operands            gather: one operand's value for every active lane
//   Row loops           map1; Srcs, plain_reg; row_apply (a warp row in one loop), rows2, rows3; map2, map3
//                       (by operand shape: rows, registers lane by lane, or gathered values)
//   Operations          FastOp; the functors Int2, IntMad, F32x2, F32Fma, Pred2
//   Typed paths         int_fast_op, int2_case, fast_int, f32_plain, fast_f32
//   fast_alu            mov, selp and not in loops of their own; the arithmetic forms by type
//   Handlers            Shape; h_bin, h_tri, h_mov_rr, h_mov_ri, h_not
//   Handler table       the handler indexes (kHInt2, kHMad, ...), IntOfIndex, fill_int2, HandlerTable,
//                       int_type_index, kFastHandlers
//   Choosing a handler  fast_handler_index: the handler for an instruction's form, as fast_alu would decide

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "sim/exec/convert.h"
#include "sim/exec/instr/operands.h"
#include "sim/exec/values.h"

namespace synclab::sim {

using namespace instr;

// Fast paths for the instructions that dominate course kernels (integer and f32 arithmetic,
// logic, shifts, comparisons, selects, moves): operands are gathered for all lanes first, then
// computed in one tight loop, then written back. Everything else takes the general path below.
void KernelRun::gather(Warp& w, uint32_t act, const Operand& o, uint64_t* out) {
  switch (o.kind) {
    case Operand::Kind::Reg:
      if (o.negate) {
        for (uint32_t m = act; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          out[l] = (w.regp[l][o.reg] & 1) ^ 1;
        }
      } else {
        for (uint32_t m = act; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          out[l] = w.regp[l][o.reg];
        }
      }
      return;
    case Operand::Kind::Imm:
      for (uint32_t m = act; m; m &= m - 1) out[__builtin_ctz(m)] = static_cast<uint64_t>(o.imm);
      return;
    default:
      for (uint32_t m = act; m; m &= m - 1) {
        const int l = __builtin_ctz(m);
        out[l] = operand(w, l, o);
      }
      return;
  }
}

namespace {

template <class F>
inline void map1(Warp& w, uint32_t act, uint32_t d, const uint64_t* A, F f) {
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    w.regp[l][d] = f(A[l]);
  }
}

// The common operand shapes (register, register) and (register, immediate) read straight from
// the register file; any other shape was gathered into A/B/C first.
struct Srcs {
  const Operand* a;
  const Operand* b;
  const Operand* c;
  const uint64_t* A;
  const uint64_t* B;
  const uint64_t* C;
};

inline bool plain_reg(const Operand& o) { return o.kind == Operand::Kind::Reg && !o.negate; }

// Row-wise form: every lane of the warp shares its frame base, so each operand is one contiguous
// row of 32 values. row_apply sets D[l] = g(l) for the lanes in act: a full warp, or one run of
// consecutive lanes, in one loop the compiler vectorizes; a nearly full warp computes all 32 lanes
// and keeps the active ones; a sparse one goes lane by lane (without reading the rest of D).
// (D may be A, B or C itself: every lane reads its own operands before its result is written,
// so the loops carry no dependence from one lane to the next.)
template <class G>
__attribute__((always_inline)) inline void row_apply(uint32_t act, uint64_t* D, G g) {
  if (act == 0xffffffffu) {
#pragma GCC ivdep
    for (int l = 0; l < 32; ++l) D[l] = g(l);
    return;
  }
  const int lo = __builtin_ctz(act);
  const uint32_t run = act >> lo;
  if ((run & (run + 1)) == 0) {  // one run of consecutive lanes (often: lanes leave in order)
    const int hi = lo + __builtin_popcount(act);
#pragma GCC ivdep
    for (int l = lo; l < hi; ++l) D[l] = g(l);
    return;
  }
  if (__builtin_popcount(act) >= 24) {
    alignas(16) uint64_t out[32];
    for (int l = 0; l < 32; ++l) out[l] = g(l);
    blend_row(D, out, act);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const int l = __builtin_ctz(m);
    D[l] = g(l);
  }
}

template <class F>
inline void rows2(uint32_t act, uint64_t* D, const uint64_t* A, const uint64_t* B, uint64_t ib, F f) {
  if (B)
    row_apply(act, D, [&](int l) { return f(A[l], B[l]); });
  else
    row_apply(act, D, [&](int l) { return f(A[l], ib); });
}
template <class F>
inline void rows3(uint32_t act, uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C, F f) {
  row_apply(act, D, [&](int l) { return f(A[l], B[l], C[l]); });
}

template <class F>
inline void map2(Warp& w, uint32_t act, uint32_t d, const Srcs& s, F f) {
  if (plain_reg(*s.a) && (plain_reg(*s.b) || s.b->kind == Operand::Kind::Imm) && w.uniform_base != Warp::kMixedBase) {
    const uint64_t* B = plain_reg(*s.b) ? w.row(s.b->reg) : nullptr;
    rows2(act, w.row(d), w.row(s.a->reg), B, static_cast<uint64_t>(s.b->imm), f);
  } else if (plain_reg(*s.a) && plain_reg(*s.b)) {
    const uint32_t ra = s.a->reg, rb = s.b->reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb]);
    }
  } else if (plain_reg(*s.a) && s.b->kind == Operand::Kind::Imm) {
    const uint32_t ra = s.a->reg;
    const uint64_t ib = static_cast<uint64_t>(s.b->imm);
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], ib);
    }
  } else {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.regp[l][d] = f(s.A[l], s.B[l]);
    }
  }
}
template <class F>
inline void map3(Warp& w, uint32_t act, uint32_t d, const Srcs& s, F f) {
  if (plain_reg(*s.a) && plain_reg(*s.b) && plain_reg(*s.c)) {
    if (w.uniform_base != Warp::kMixedBase) {
      rows3(act, w.row(d), w.row(s.a->reg), w.row(s.b->reg), w.row(s.c->reg), f);
      return;
    }
    const uint32_t ra = s.a->reg, rb = s.b->reg, rc = s.c->reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb], R[rc]);
    }
  } else {
    for (uint32_t m = act; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      w.regp[l][d] = f(s.A[l], s.B[l], s.C[l]);
    }
  }
}

// The operations of the fast paths on raw register values, one functor per (type, operation):
// the generic fast path (fast_int, fast_f32) and the per-instruction handlers below use the same.
enum FastOp : int {
  kAdd,
  kSub,
  kMulLo,
  kMulWide,
  kAnd,
  kOr,
  kXor,
  kMin,
  kMax,
  kShl,
  kShr,  // arithmetic and logic
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLo,
  kLs,
  kHi,
  kHs,  // setp comparisons
  kNumIntOps
};

template <class T, int K>
struct Int2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    using U = std::make_unsigned_t<T>;
    constexpr uint32_t bits = sizeof(T) * 8;
    if constexpr (K == kAdd)
      return to_bits<T>(T(U(a) + U(b)));
    else if constexpr (K == kSub)
      return to_bits<T>(T(U(a) - U(b)));
    else if constexpr (K == kMulLo)
      return to_bits<T>(T(wrapping_mul<U>(U(a), U(b))));
    else if constexpr (K == kMulWide) {
      static_assert(sizeof(T) == 4, "mul.wide of 32-bit operands only");
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return to_bits<W>(W(T(a)) * W(T(b)));
    } else if constexpr (K == kAnd)
      return a & b;
    else if constexpr (K == kOr)
      return a | b;
    else if constexpr (K == kXor)
      return a ^ b;
    else if constexpr (K == kMin)
      return to_bits<T>(std::min(T(a), T(b)));
    else if constexpr (K == kMax)
      return to_bits<T>(std::max(T(a), T(b)));
    else if constexpr (K == kShl) {
      const uint32_t n = uint32_t(b);
      return n >= bits ? uint64_t(0) : to_bits<T>(T(U(a) << n));
    } else if constexpr (K == kShr) {
      const uint32_t n = uint32_t(b);
      if constexpr (std::is_signed_v<T>)
        return to_bits<T>(n >= bits ? (T(a) < 0 ? T(-1) : T(0)) : T(T(a) >> n));
      else
        return n >= bits ? uint64_t(0) : to_bits<T>(T(U(a) >> n));
    } else if constexpr (K == kEq)
      return uint64_t(T(a) == T(b));
    else if constexpr (K == kNe)
      return uint64_t(T(a) != T(b));
    else if constexpr (K == kLt)
      return uint64_t(T(a) < T(b));
    else if constexpr (K == kLe)
      return uint64_t(T(a) <= T(b));
    else if constexpr (K == kGt)
      return uint64_t(T(a) > T(b));
    else if constexpr (K == kGe)
      return uint64_t(T(a) >= T(b));
    else if constexpr (K == kLo)
      return uint64_t(U(a) < U(b));
    else if constexpr (K == kLs)
      return uint64_t(U(a) <= U(b));
    else if constexpr (K == kHi)
      return uint64_t(U(a) > U(b));
    else
      return uint64_t(U(a) >= U(b));  // kHs
  }
};
template <class T>
struct IntMad {  // mad.lo
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    using U = std::make_unsigned_t<T>;
    return to_bits<T>(T(U(wrapping_mul<U>(U(a), U(b)) + U(c))));
  }
};
// f32 add, sub, mul (kAdd, kSub, kMulLo) without .ftz/.sat and with round-to-nearest.
template <int K>
struct F32x2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    const float x = from_bits<float>(a), y = from_bits<float>(b);
    if constexpr (K == kAdd)
      return to_bits(x + y);
    else if constexpr (K == kSub)
      return to_bits(x - y);
    else
      return to_bits(x * y);
  }
};
struct F32Fma {
  uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    return to_bits(std::fma(from_bits<float>(a), from_bits<float>(b), from_bits<float>(c)));
  }
};
// and/or/xor.pred: the result keeps bit 0, as exec_alu does.
template <int K>
struct Pred2 {
  uint64_t operator()(uint64_t a, uint64_t b) const {
    if constexpr (K == kAnd)
      return (a & b) & 1;
    else if constexpr (K == kOr)
      return (a | b) & 1;
    else
      return (a ^ b) & 1;
  }
};

// The FastOp of an integer instruction the fast paths handle, or -1.
int int_fast_op(const ptx::Instr& I, bool wide_ok) {
  switch (I.op) {
    case Op::Add: return kAdd;
    case Op::Sub: return kSub;
    case Op::Mul:
      if (I.mul == ptx::MulMode::Wide) return wide_ok ? kMulWide : -1;
      if (I.mul == ptx::MulMode::Hi) return -1;
      return kMulLo;
    case Op::And: return kAnd;
    case Op::Or: return kOr;
    case Op::Xor: return kXor;
    case Op::Min: return kMin;
    case Op::Max: return kMax;
    case Op::Shl: return kShl;
    case Op::Shr: return kShr;
    case Op::Setp:
      if (I.boolop != ptx::BoolOp::None || I.ndst > 1) return -1;
      switch (I.cmp) {
        case Cmp::Eq: return kEq;
        case Cmp::Ne: return kNe;
        case Cmp::Lt: return kLt;
        case Cmp::Le: return kLe;
        case Cmp::Gt: return kGt;
        case Cmp::Ge: return kGe;
        case Cmp::Lo: return kLo;
        case Cmp::Ls: return kLs;
        case Cmp::Hi: return kHi;
        case Cmp::Hs: return kHs;
        default: return -1;
      }
    default: return -1;
  }
}

template <class T, int K>
inline void int2_case(Warp& w, uint32_t act, uint32_t d, const Srcs& S) {
  map2(w, act, d, S, Int2<T, K>{});
}

template <class T>
bool fast_int(Warp& w, uint32_t act, const ptx::Instr& I, const Srcs& S) {
  const uint32_t d = I.dst[0].reg;
  if (I.op == Op::Mad) {
    if (I.mul == ptx::MulMode::Hi || I.mul == ptx::MulMode::Wide) return false;
    map3(w, act, d, S, IntMad<T>{});
    return true;
  }
  switch (int_fast_op(I, sizeof(T) == 4)) {
    case kAdd: int2_case<T, kAdd>(w, act, d, S); return true;
    case kSub: int2_case<T, kSub>(w, act, d, S); return true;
    case kMulLo: int2_case<T, kMulLo>(w, act, d, S); return true;
    case kMulWide:
      if constexpr (sizeof(T) == 4) {
        int2_case<T, kMulWide>(w, act, d, S);
        return true;
      }
      return false;
    case kAnd: int2_case<T, kAnd>(w, act, d, S); return true;
    case kOr: int2_case<T, kOr>(w, act, d, S); return true;
    case kXor: int2_case<T, kXor>(w, act, d, S); return true;
    case kMin: int2_case<T, kMin>(w, act, d, S); return true;
    case kMax: int2_case<T, kMax>(w, act, d, S); return true;
    case kShl: int2_case<T, kShl>(w, act, d, S); return true;
    case kShr: int2_case<T, kShr>(w, act, d, S); return true;
    case kEq: int2_case<T, kEq>(w, act, d, S); return true;
    case kNe: int2_case<T, kNe>(w, act, d, S); return true;
    case kLt: int2_case<T, kLt>(w, act, d, S); return true;
    case kLe: int2_case<T, kLe>(w, act, d, S); return true;
    case kGt: int2_case<T, kGt>(w, act, d, S); return true;
    case kGe: int2_case<T, kGe>(w, act, d, S); return true;
    case kLo: int2_case<T, kLo>(w, act, d, S); return true;
    case kLs: int2_case<T, kLs>(w, act, d, S); return true;
    case kHi: int2_case<T, kHi>(w, act, d, S); return true;
    case kHs: int2_case<T, kHs>(w, act, d, S); return true;
    default: return false;
  }
}

bool f32_plain(const ptx::Instr& I) { return !I.ftz && !I.sat && (I.rnd == Rounding::None || I.rnd == Rounding::Rn); }

bool fast_f32(Warp& w, uint32_t act, const ptx::Instr& I, const Srcs& S) {
  if (!f32_plain(I)) return false;
  const uint32_t d = I.dst[0].reg;
  switch (I.op) {
    case Op::Add: map2(w, act, d, S, F32x2<kAdd>{}); return true;
    case Op::Sub: map2(w, act, d, S, F32x2<kSub>{}); return true;
    case Op::Mul: map2(w, act, d, S, F32x2<kMulLo>{}); return true;
    case Op::Fma:
    case Op::Mad: map3(w, act, d, S, F32Fma{}); return true;
    default: return false;
  }
}

}  // namespace

bool KernelRun::fast_alu(Warp& w, uint32_t act, const ptx::Instr& I) {
  if (I.has_cc || I.carry_in || I.sat) return false;
  if (I.ndst < 1 || I.dst[0].kind != Operand::Kind::Reg) return false;
  uint64_t A[32], B[32], C[32];
  const Srcs S{&I.src[0], &I.src[1], &I.src[2], A, B, C};
  switch (I.op) {
    case Op::Mov:
      if (I.src[0].kind == Operand::Kind::Vector || I.type == Type::Pred) return false;
      if (plain_reg(I.src[0]) && w.uniform_base != Warp::kMixedBase) {
        if (I.src[0].reg != I.dst[0].reg) {
          const uint64_t* A = w.row(I.src[0].reg);
          row_apply(act, w.row(I.dst[0].reg), [A](int l) { return A[l]; });
        }
        return true;
      }
      if (I.src[0].kind == Operand::Kind::Imm && w.uniform_base != Warp::kMixedBase) {
        const uint64_t v = static_cast<uint64_t>(I.src[0].imm);
        row_apply(act, w.row(I.dst[0].reg), [v](int) { return v; });
        return true;
      }
      if (plain_reg(I.src[0])) {
        const uint32_t ra = I.src[0].reg, d = I.dst[0].reg;
        for (uint32_t m = act; m; m &= m - 1) {
          const LaneRegs R = w.regp[__builtin_ctz(m)];
          R[d] = R[ra];
        }
        return true;
      }
      gather(w, act, I.src[0], A);
      map1(w, act, I.dst[0].reg, A, [](uint64_t a) { return a; });
      return true;
    case Op::Selp:
      if (plain_reg(I.src[2]) && (plain_reg(I.src[0]) || I.src[0].kind == Operand::Kind::Imm) &&
          (plain_reg(I.src[1]) || I.src[1].kind == Operand::Kind::Imm)) {
        const uint32_t d = I.dst[0].reg, rc = I.src[2].reg;
        const Operand &a = I.src[0], &b = I.src[1];
        for (uint32_t m = act; m; m &= m - 1) {
          const LaneRegs R = w.regp[__builtin_ctz(m)];
          uint64_t va = a.kind == Operand::Kind::Reg ? R[a.reg] : uint64_t(a.imm);
          uint64_t vb = b.kind == Operand::Kind::Reg ? R[b.reg] : uint64_t(b.imm);
          R[d] = (R[rc] & 1) ? va : vb;
        }
        return true;
      }
      return false;
    case Op::Not: {
      // not.pred keeps bit 0 only; other types complement all 64 bits, as exec_alu does.
      const uint64_t keep = I.type == Type::Pred ? 1 : ~uint64_t(0);
      const uint32_t d = I.dst[0].reg;
      if (plain_reg(I.src[0]) && w.uniform_base != Warp::kMixedBase) {
        const uint64_t* A = w.row(I.src[0].reg);
        row_apply(act, w.row(d), [A, keep](int l) { return ~A[l] & keep; });
        return true;
      }
      gather(w, act, I.src[0], A);
      map1(w, act, d, A, [keep](uint64_t a) { return ~a & keep; });
      return true;
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Fma:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Min:
    case Op::Max:
    case Op::Shl:
    case Op::Shr:
    case Op::Setp: break;
    default: return false;
  }
  if (I.nsrc < 2) return false;
  // The generic loops read A/B/C: fill them unless the operand shape has its own loop.
  const bool two_fast = plain_reg(I.src[0]) && (plain_reg(I.src[1]) || I.src[1].kind == Operand::Kind::Imm);
  const bool three_fast = I.nsrc > 2 && plain_reg(I.src[0]) && plain_reg(I.src[1]) && plain_reg(I.src[2]);
  const bool gathered = I.nsrc > 2 ? !three_fast : !two_fast;
  if (gathered) {
    gather(w, act, I.src[0], A);
    gather(w, act, I.src[1], B);
    if (I.nsrc > 2) gather(w, act, I.src[2], C);
  }
  switch (I.type) {
    case Type::U32:
    case Type::B32: return fast_int<uint32_t>(w, act, I, S);
    case Type::S32: return fast_int<int32_t>(w, act, I, S);
    case Type::U64:
    case Type::B64: return fast_int<uint64_t>(w, act, I, S);
    case Type::S64: return fast_int<int64_t>(w, act, I, S);
    case Type::F32:
      if (I.op == Op::Setp) return false;
      return fast_f32(w, act, I, S);
    case Type::Pred: {
      const uint32_t d = I.dst[0].reg;
      switch (I.op) {
        case Op::And: map2(w, act, d, S, Pred2<kAnd>{}); return true;
        case Op::Or: map2(w, act, d, S, Pred2<kOr>{}); return true;
        case Op::Xor: map2(w, act, d, S, Pred2<kXor>{}); return true;
        default: return false;
      }
    }
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Per-instruction handlers: the common arithmetic forms (register/immediate operands, no carry or
// saturation) get a handler of their own when the module is loaded (Instr::fast), so that the
// dispatcher makes one indirect call where fast_alu would test the opcode, type, operand shapes
// and comparison one after the other. Each handler does exactly what fast_alu does for its form.
// ---------------------------------------------------------------------------------------------

namespace {

enum Shape : int { kRR, kRI };  // register and register, register and immediate

template <class F, int SH>
void h_bin(Warp& w, uint32_t act, const ptx::Instr& I) {
  const F f{};
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    rows2(act, w.row(d), w.row(ra), SH == kRR ? w.row(I.src[1].reg) : nullptr, static_cast<uint64_t>(I.src[1].imm), f);
  } else if constexpr (SH == kRR) {
    const uint32_t rb = I.src[1].reg;
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], R[rb]);
    }
  } else {
    const uint64_t ib = static_cast<uint64_t>(I.src[1].imm);
    for (uint32_t m = act; m; m &= m - 1) {
      const LaneRegs R = w.regp[__builtin_ctz(m)];
      R[d] = f(R[ra], ib);
    }
  }
}

template <class F>
void h_tri(Warp& w, uint32_t act, const ptx::Instr& I) {
  const F f{};
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg, rb = I.src[1].reg, rc = I.src[2].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    rows3(act, w.row(d), w.row(ra), w.row(rb), w.row(rc), f);
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = f(R[ra], R[rb], R[rc]);
  }
}

void h_mov_rr(Warp& w, uint32_t act, const ptx::Instr& I) {
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    if (ra != d) {
      const uint64_t* A = w.row(ra);
      row_apply(act, w.row(d), [A](int l) { return A[l]; });
    }
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = R[ra];
  }
}

void h_mov_ri(Warp& w, uint32_t act, const ptx::Instr& I) {
  const uint32_t d = I.dst[0].reg;
  const uint64_t v = static_cast<uint64_t>(I.src[0].imm);
  if (w.uniform_base != Warp::kMixedBase) {
    row_apply(act, w.row(d), [v](int) { return v; });
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) w.regp[__builtin_ctz(m)][d] = v;
}

// not: .pred keeps bit 0 only, other types complement all 64 bits.
template <bool PRED>
void h_not(Warp& w, uint32_t act, const ptx::Instr& I) {
  constexpr uint64_t keep = PRED ? 1 : ~uint64_t(0);
  const uint32_t d = I.dst[0].reg, ra = I.src[0].reg;
  if (w.uniform_base != Warp::kMixedBase) {
    const uint64_t* A = w.row(ra);
    row_apply(act, w.row(d), [A](int l) { return ~A[l] & keep; });
    return;
  }
  for (uint32_t m = act; m; m &= m - 1) {
    const LaneRegs R = w.regp[__builtin_ctz(m)];
    R[d] = ~R[ra] & keep;
  }
}

// Handler indexes (0 is "none").
constexpr int kIntTypes = 4;                                // s32, u32 (b32), s64, u64 (b64)
constexpr int kHInt2 = 1;                                   // + (type * kNumIntOps + op) * 2 + shape
constexpr int kHMad = kHInt2 + kIntTypes * kNumIntOps * 2;  // + type
constexpr int kHF32 = kHMad + kIntTypes;                    // + (add|sub|mul) * 2 + shape
constexpr int kHF32Fma = kHF32 + 6;
constexpr int kHPred = kHF32Fma + 1;  // + (and|or|xor) * 2 + shape
constexpr int kHMovRR = kHPred + 6;
constexpr int kHMovRI = kHMovRR + 1;
constexpr int kHNotPred = kHMovRI + 1;
constexpr int kHNot = kHNotPred + 1;
constexpr int kNumHandlers = kHNot + 1;
static_assert(kNumHandlers <= 256, "Instr::fast is one byte");

template <int TI>
using IntOfIndex =
    std::conditional_t<TI == 0, int32_t,
                       std::conditional_t<TI == 1, uint32_t, std::conditional_t<TI == 2, int64_t, uint64_t>>>;

template <size_t... N>
void fill_int2(FastHandler* t, std::index_sequence<N...>) {
  // N = (type * kNumIntOps + op) * 2 + shape; mul.wide exists for 32-bit types only.
  ((t[kHInt2 + N] =
        (int(N / 2 % kNumIntOps) == kMulWide && N / 2 / kNumIntOps >= 2)
            ? nullptr
            : &h_bin<Int2<IntOfIndex<int(N / 2 / kNumIntOps)>,
                          (int(N / 2 % kNumIntOps) == kMulWide && N / 2 / kNumIntOps >= 2) ? kAdd
                                                                                           : int(N / 2 % kNumIntOps)>,
                     int(N % 2)>),
   ...);
}

struct HandlerTable {
  FastHandler h[kNumHandlers] = {};
  HandlerTable() {
    fill_int2(h, std::make_index_sequence<kIntTypes * kNumIntOps * 2>{});
    h[kHMad + 0] = &h_tri<IntMad<int32_t>>;
    h[kHMad + 1] = &h_tri<IntMad<uint32_t>>;
    h[kHMad + 2] = &h_tri<IntMad<int64_t>>;
    h[kHMad + 3] = &h_tri<IntMad<uint64_t>>;
    h[kHF32 + 0] = &h_bin<F32x2<kAdd>, kRR>;
    h[kHF32 + 1] = &h_bin<F32x2<kAdd>, kRI>;
    h[kHF32 + 2] = &h_bin<F32x2<kSub>, kRR>;
    h[kHF32 + 3] = &h_bin<F32x2<kSub>, kRI>;
    h[kHF32 + 4] = &h_bin<F32x2<kMulLo>, kRR>;
    h[kHF32 + 5] = &h_bin<F32x2<kMulLo>, kRI>;
    h[kHF32Fma] = &h_tri<F32Fma>;
    h[kHPred + 0] = &h_bin<Pred2<kAnd>, kRR>;
    h[kHPred + 1] = &h_bin<Pred2<kAnd>, kRI>;
    h[kHPred + 2] = &h_bin<Pred2<kOr>, kRR>;
    h[kHPred + 3] = &h_bin<Pred2<kOr>, kRI>;
    h[kHPred + 4] = &h_bin<Pred2<kXor>, kRR>;
    h[kHPred + 5] = &h_bin<Pred2<kXor>, kRI>;
    h[kHMovRR] = &h_mov_rr;
    h[kHMovRI] = &h_mov_ri;
    h[kHNotPred] = &h_not<true>;
    h[kHNot] = &h_not<false>;
  }
};
const HandlerTable kHandlers;

int int_type_index(Type t) {
  switch (t) {
    case Type::S32: return 0;
    case Type::U32:
    case Type::B32: return 1;
    case Type::S64: return 2;
    case Type::U64:
    case Type::B64: return 3;
    default: return -1;
  }
}

}  // namespace

const FastHandler* const kFastHandlers = kHandlers.h;

// Mirrors fast_alu's decisions: a form gets a handler only where fast_alu would take the same
// path for it.
uint8_t fast_handler_index(const ptx::Instr& I) {
  if (I.has_cc || I.carry_in || I.sat) return 0;
  if (I.ndst < 1 || I.dst[0].kind != Operand::Kind::Reg) return 0;
  const Operand& a = I.src[0];
  const Operand& b = I.src[1];
  switch (I.op) {
    case Op::Mov:
      if (a.kind == Operand::Kind::Vector || I.type == Type::Pred) return 0;
      if (plain_reg(a)) return kHMovRR;
      if (a.kind == Operand::Kind::Imm) return kHMovRI;
      return 0;
    case Op::Not:
      if (!plain_reg(a)) return 0;
      return I.type == Type::Pred ? kHNotPred : kHNot;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Fma:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Min:
    case Op::Max:
    case Op::Shl:
    case Op::Shr:
    case Op::Setp: break;
    default: return 0;
  }
  if (I.nsrc < 2) return 0;
  int shape = -1;  // kRR, kRI, or 2 for three registers
  if (I.nsrc == 2) {
    if (plain_reg(a) && plain_reg(b))
      shape = kRR;
    else if (plain_reg(a) && b.kind == Operand::Kind::Imm)
      shape = kRI;
  } else if (I.nsrc == 3 && plain_reg(a) && plain_reg(b) && plain_reg(I.src[2])) {
    shape = 2;
  }
  if (shape < 0) return 0;
  if (const int ti = int_type_index(I.type); ti >= 0) {
    if (I.op == Op::Mad) {
      if (I.mul == ptx::MulMode::Hi || I.mul == ptx::MulMode::Wide || shape != 2) return 0;
      return static_cast<uint8_t>(kHMad + ti);
    }
    if (I.op == Op::Fma || shape == 2) return 0;
    const int k = int_fast_op(I, ti < 2);
    if (k < 0) return 0;
    return static_cast<uint8_t>(kHInt2 + (ti * kNumIntOps + k) * 2 + shape);
  }
  if (I.type == Type::F32) {
    if (I.op == Op::Setp || !f32_plain(I)) return 0;
    switch (I.op) {
      case Op::Add: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 0 + shape);
      case Op::Sub: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 2 + shape);
      case Op::Mul: return shape == 2 ? 0 : static_cast<uint8_t>(kHF32 + 4 + shape);
      case Op::Fma:
      case Op::Mad: return shape == 2 ? static_cast<uint8_t>(kHF32Fma) : 0;
      default: return 0;
    }
  }
  if (I.type == Type::Pred && shape != 2) {
    switch (I.op) {
      case Op::And: return static_cast<uint8_t>(kHPred + 0 + shape);
      case Op::Or: return static_cast<uint8_t>(kHPred + 2 + shape);
      case Op::Xor: return static_cast<uint8_t>(kHPred + 4 + shape);
      default: return 0;
    }
  }
  return 0;
}
}  // namespace synclab::sim
