// Instruction semantics, arithmetic: integer, floating-point and predicate operations, comparison,
// selection, bit manipulation and conversion, for any operand form (the general path; the common
// forms take alu_fast.cpp first).
//
// Where things are (the sections below, in this order):
//   Comparison          compare, compare_typed (every type and comparison of setp and set), combine
//   Floating point      fmin_ptx, fmax_ptx, rounded (the directed rounding modes), float_op (one precision,
//                       with .ftz and .sat), half2_op (.f16x2, one half at a time)
//   Integer             sat_add, sat_sub, mul_hi, int_op (carry in and out, .hi and .wide, division by zero,
//                       the 24-bit forms)
//   Bits                shift_op, prmt (its byte-selection modes), lop3
//   Type dispatch       INT_DISPATCH: an integer type -> T for the code it wraps
//   exec_alu            the general path, after fast_alu declines, one case per opcode: mov (vectors packed
//                       and unpacked); arithmetic by type; logic and bit operations; setp, set, selp, slct;
//                       cvt, cvta, isspacep, testp; a fault for a form that is not modelled

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

namespace {

template <class T>
bool compare(Cmp c, T a, T b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half_t>) {
    const bool unord = std::isnan(double(a)) || std::isnan(double(b));
    switch (c) {
      case Cmp::Eq: return !unord && a == b;
      case Cmp::Ne: return !unord && a != b;
      case Cmp::Lt: return !unord && a < b;
      case Cmp::Le: return !unord && a <= b;
      case Cmp::Gt: return !unord && a > b;
      case Cmp::Ge: return !unord && a >= b;
      case Cmp::Equ: return unord || a == b;
      case Cmp::Neu: return unord || a != b;
      case Cmp::Ltu: return unord || a < b;
      case Cmp::Leu: return unord || a <= b;
      case Cmp::Gtu: return unord || a > b;
      case Cmp::Geu: return unord || a >= b;
      case Cmp::Num: return !unord;
      case Cmp::Nan: return unord;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (c) {
      case Cmp::Eq: return a == b;
      case Cmp::Ne: return a != b;
      case Cmp::Lt: return a < b;
      case Cmp::Le: return a <= b;
      case Cmp::Gt: return a > b;
      case Cmp::Ge: return a >= b;
      case Cmp::Lo: return U(a) < U(b);
      case Cmp::Ls: return U(a) <= U(b);
      case Cmp::Hi: return U(a) > U(b);
      case Cmp::Hs: return U(a) >= U(b);
      default: return false;
    }
  }
}

bool compare_typed(Type t, Cmp c, uint64_t a, uint64_t b) {
  switch (t) {
    case Type::S16: return compare<int16_t>(c, int16_t(a), int16_t(b));
    case Type::S32: return compare<int32_t>(c, int32_t(a), int32_t(b));
    case Type::S64: return compare<int64_t>(c, int64_t(a), int64_t(b));
    case Type::U16:
    case Type::B16: return compare<uint16_t>(c, uint16_t(a), uint16_t(b));
    case Type::U32:
    case Type::B32: return compare<uint32_t>(c, uint32_t(a), uint32_t(b));
    case Type::U64:
    case Type::B64: return compare<uint64_t>(c, a, b);
    case Type::F32: return compare<float>(c, from_bits<float>(a), from_bits<float>(b));
    case Type::F64: return compare<double>(c, from_bits<double>(a), from_bits<double>(b));
    case Type::F16: return compare<half_t>(c, from_bits<half_t>(a), from_bits<half_t>(b));
    case Type::Pred: return compare<uint8_t>(c, uint8_t(a & 1), uint8_t(b & 1));
    default: return false;
  }
}

bool combine(ptx::BoolOp op, bool r, bool c) {
  switch (op) {
    case ptx::BoolOp::And: return r && c;
    case ptx::BoolOp::Or: return r || c;
    case ptx::BoolOp::Xor: return r != c;
    default: return r;
  }
}

template <class T>
T fmin_ptx(T a, T b) {
  if (std::isnan(double(a))) return b;
  if (std::isnan(double(b))) return a;
  if (a == b) return std::signbit(double(a)) ? a : b;  // min(-0, +0) = -0
  return a < b ? a : b;
}
template <class T>
T fmax_ptx(T a, T b) {
  if (std::isnan(double(a))) return b;
  if (std::isnan(double(b))) return a;
  if (a == b) return std::signbit(double(a)) ? b : a;
  return a > b ? a : b;
}

template <class F>
auto rounded(Rounding r, F f) {
  int mode = FE_TONEAREST;
  switch (r) {
    case Rounding::Rz: mode = FE_TOWARDZERO; break;
    case Rounding::Rm: mode = FE_DOWNWARD; break;
    case Rounding::Rp: mode = FE_UPWARD; break;
    default: return f();
  }
  int old = std::fegetround();
  std::fesetround(mode);
  auto v = f();
  std::fesetround(old);
  return v;
}

// Float operations of one precision, with .ftz and .sat.
template <class T>
uint64_t float_op(const ptx::Instr& I, uint64_t ab, uint64_t bb, uint64_t cb) {
  using W = std::conditional_t<std::is_same_v<T, half_t>, float, T>;  // math in at least float
  T a = from_bits<T>(ab), b = from_bits<T>(bb), c = from_bits<T>(cb);
  if constexpr (std::is_same_v<T, float>) {
    if (I.ftz) {
      a = ftz(a);
      b = ftz(b);
      c = ftz(c);
    }
  }
  T r{};
  switch (I.op) {
    case Op::Add: r = rounded(I.rnd, [&] { return T(a + b); }); break;
    case Op::Sub: r = rounded(I.rnd, [&] { return T(a - b); }); break;
    case Op::Mul: r = rounded(I.rnd, [&] { return T(a * b); }); break;
    case Op::Mad:
    case Op::Fma:
      if constexpr (std::is_same_v<T, half_t>)
        r = T(std::fma(float(a), float(b), float(c)));
      else
        r = rounded(I.rnd, [&] { return T(std::fma(a, b, c)); });
      break;
    case Op::Div: r = rounded(I.rnd, [&] { return T(a / b); }); break;
    case Op::Abs: r = T(std::fabs(W(a))); break;
    case Op::Neg: r = T(-a); break;
    case Op::Min: r = (I.nan && (std::isnan(double(a)) || std::isnan(double(b)))) ? T(NAN) : fmin_ptx(a, b); break;
    case Op::Max: r = (I.nan && (std::isnan(double(a)) || std::isnan(double(b)))) ? T(NAN) : fmax_ptx(a, b); break;
    case Op::Rcp: r = rounded(I.rnd, [&] { return T(W(1) / W(a)); }); break;
    case Op::Sqrt: r = rounded(I.rnd, [&] { return T(std::sqrt(W(a))); }); break;
    case Op::Rsqrt: r = T(W(1) / std::sqrt(W(a))); break;
    case Op::Ex2: r = T(std::exp2(W(a))); break;
    case Op::Lg2: r = T(std::log2(W(a))); break;
    case Op::Sin: r = T(std::sin(W(a))); break;
    case Op::Cos: r = T(std::cos(W(a))); break;
    case Op::Tanh: r = T(std::tanh(W(a))); break;
    case Op::Copysign: r = T(std::copysign(double(b), double(a))); break;
    default: break;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (I.ftz) r = ftz(r);
  }
  if (I.sat) {
    if constexpr (std::is_same_v<T, half_t>)
      r = T(saturate(float(r)));
    else
      r = saturate(r);
  }
  return to_bits<T>(r);
}

uint64_t half2_op(const ptx::Instr& I, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t lo = float_op<half_t>(I, a & 0xffff, b & 0xffff, c & 0xffff);
  uint64_t hi = float_op<half_t>(I, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
  return (lo & 0xffff) | ((hi & 0xffff) << 16);
}

template <class T>
T sat_add(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  return r;
}
template <class T>
T sat_sub(T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) return a < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  return r;
}

// High half of a full-width product.
template <class T>
T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return static_cast<T>((W(a) * W(b)) >> 64);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return static_cast<T>((W(a) * W(b)) >> (sizeof(T) * 8));
  }
}

template <class T>
uint64_t int_op(const ptx::Instr& I, uint64_t ab, uint64_t bb, uint64_t cb, bool* carry) {
  using U = std::make_unsigned_t<T>;
  const T a = static_cast<T>(ab), b = static_cast<T>(bb), c = static_cast<T>(cb);
  constexpr int bits = sizeof(T) * 8;
  switch (I.op) {
    case Op::Add: {
      if (I.sat) return to_bits<T>(sat_add<T>(a, b));
      U r = U(a) + U(b);
      if (I.carry_in) r += U(*carry ? 1 : 0);
      if (I.has_cc) {
        unsigned __int128 full = (unsigned __int128)(U(a)) + U(b) + (I.carry_in && *carry ? 1 : 0);
        *carry = (full >> bits) != 0;
      }
      return to_bits<T>(T(r));
    }
    case Op::Sub: {
      if (I.sat) return to_bits<T>(sat_sub<T>(a, b));
      U borrow_in = (I.carry_in && *carry) ? 1 : 0;
      U r = U(a) - U(b) - borrow_in;
      if (I.has_cc) *carry = (unsigned __int128)(U(b)) + borrow_in > (unsigned __int128)(U(a));
      return to_bits<T>(T(r));
    }
    case Op::Mul:
      if (I.mul == ptx::MulMode::Hi) return to_bits<T>(mul_hi<T>(a, b));
      if (I.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = std::conditional_t<std::is_signed_v<T>, std::conditional_t<sizeof(T) == 4, int64_t, int32_t>,
                                       std::conditional_t<sizeof(T) == 4, uint64_t, uint32_t>>;
          return to_bits<W>(W(a) * W(b));
        }
      }
      return to_bits<T>(T(wrapping_mul<U>(U(a), U(b))));
    case Op::Mad: {
      if (I.mul == ptx::MulMode::Hi) {
        U r = U(mul_hi<T>(a, b)) + U(c);
        if (I.sat && std::is_signed_v<T>) return to_bits<T>(sat_add<T>(mul_hi<T>(a, b), c));
        return to_bits<T>(T(r));
      }
      if (I.mul == ptx::MulMode::Wide) {
        if constexpr (sizeof(T) <= 4) {
          using W = std::conditional_t<std::is_signed_v<T>, std::conditional_t<sizeof(T) == 4, int64_t, int32_t>,
                                       std::conditional_t<sizeof(T) == 4, uint64_t, uint32_t>>;
          using WU = std::make_unsigned_t<W>;
          return to_bits<W>(W(WU(W(a) * W(b)) + WU(static_cast<W>(static_cast<std::make_signed_t<W>>(cb)))));
        }
      }
      U prod = wrapping_mul<U>(U(a), U(b));
      U r = prod + U(c) + ((I.carry_in && *carry) ? 1 : 0);
      if (I.has_cc) {
        unsigned __int128 full = (unsigned __int128)prod + U(c) + ((I.carry_in && *carry) ? 1 : 0);
        *carry = (full >> bits) != 0;
      }
      return to_bits<T>(T(r));
    }
    case Op::Div:
      if (b == 0) return to_bits<T>(T(~U(0)));
      if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == T(-1)) return to_bits<T>(a);
      }
      return to_bits<T>(T(a / b));
    case Op::Rem:
      if (b == 0) return to_bits<T>(a);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return 0;
      }
      return to_bits<T>(T(a % b));
    case Op::Abs:
      if constexpr (std::is_signed_v<T>) return to_bits<T>(a < 0 ? T(U(0) - U(a)) : a);
      return to_bits<T>(a);
    case Op::Neg: return to_bits<T>(T(U(0) - U(a)));
    case Op::Min: return to_bits<T>(std::min(a, b));
    case Op::Max: return to_bits<T>(std::max(a, b));
    case Op::Sad: {
      U d = a > b ? U(a) - U(b) : U(b) - U(a);
      return to_bits<T>(T(d + U(c)));
    }
    case Op::Mul24:
    case Op::Mad24: {
      int64_t x = std::is_signed_v<T> ? (int64_t(int32_t(uint32_t(a) << 8)) >> 8) : int64_t(uint32_t(a) & 0xffffff);
      int64_t y = std::is_signed_v<T> ? (int64_t(int32_t(uint32_t(b) << 8)) >> 8) : int64_t(uint32_t(b) & 0xffffff);
      int64_t p = x * y;
      uint32_t r = I.mul == ptx::MulMode::Hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
      if (I.op == Op::Mad24) r += uint32_t(c);
      return to_bits<T>(T(r));
    }
    default: return 0;
  }
}

template <class T>
uint64_t shift_op(Op op, uint64_t ab, uint32_t n) {
  constexpr uint32_t bits = sizeof(T) * 8;
  T a = static_cast<T>(ab);
  if (op == Op::Shl) return n >= bits ? 0 : to_bits<T>(T(std::make_unsigned_t<T>(a) << n));
  if constexpr (std::is_signed_v<T>) {
    if (n >= bits) return to_bits<T>(a < 0 ? T(-1) : T(0));
    return to_bits<T>(T(a >> n));
  }
  return n >= bits ? 0 : to_bits<T>(T(a >> n));
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, ptx::PrmtMode mode) {
  const uint64_t bytes = (uint64_t(b) << 32) | a;
  auto byte = [&](uint32_t i) { return uint32_t((bytes >> (8 * (i & 7))) & 0xff); };
  uint32_t r = 0;
  switch (mode) {
    case ptx::PrmtMode::None:
      for (int k = 0; k < 4; ++k) {
        uint32_t sel = (c >> (4 * k)) & 0xf;
        uint32_t v = byte(sel & 7);
        if (sel & 8) v = (v & 0x80) ? 0xff : 0x00;  // replicate the sign bit
        r |= v << (8 * k);
      }
      return r;
    case ptx::PrmtMode::F4e: {
      uint32_t s = c & 3;
      for (int k = 0; k < 4; ++k) r |= byte(s + k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::B4e: {
      uint32_t s = c & 3;
      for (int k = 0; k < 4; ++k) r |= byte((s - k + 8) & 7) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Rc8: {
      uint32_t v = byte(c & 3);
      return v | v << 8 | v << 16 | v << 24;
    }
    case ptx::PrmtMode::Ecl: {
      uint32_t s = c & 3;
      for (uint32_t k = 0; k < 4; ++k) r |= byte(k >= s ? s : k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Ecr: {
      uint32_t s = c & 3;
      for (uint32_t k = 0; k < 4; ++k) r |= byte(k <= s ? s : k) << (8 * k);
      return r;
    }
    case ptx::PrmtMode::Rc16: {
      uint32_t s = c & 1;
      uint32_t v = byte(2 * s) | byte(2 * s + 1) << 8;
      return v | v << 16;
    }
  }
  return r;
}

uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut) {
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if (!(lut & (1u << i))) continue;
    uint64_t term = ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    r |= term;
  }
  return r;
}

}  // namespace

#define INT_DISPATCH(T_, CALL)          \
  switch (T_) {                         \
    case Type::S16: {                   \
      using T = int16_t;                \
      CALL;                             \
    } break;                            \
    case Type::U16:                     \
    case Type::B16: {                   \
      using T = uint16_t;               \
      CALL;                             \
    } break;                            \
    case Type::S32: {                   \
      using T = int32_t;                \
      CALL;                             \
    } break;                            \
    case Type::U32:                     \
    case Type::B32: {                   \
      using T = uint32_t;               \
      CALL;                             \
    } break;                            \
    case Type::S64: {                   \
      using T = int64_t;                \
      CALL;                             \
    } break;                            \
    case Type::U64:                     \
    case Type::B64: {                   \
      using T = uint64_t;               \
      CALL;                             \
    } break;                            \
    default: unsupported = true; break; \
  }

void KernelRun::exec_alu(Warp& w, uint32_t act, const ptx::Instr& I) {
  if (cfg_.fast && fast_alu(w, act, I)) return;
  const Operand& d = I.dst[0];
  bool unsupported = false;
  auto src = [&](int lane, int i) { return operand(w, lane, I.src[i]); };

  switch (I.op) {
    case Op::Mov: {
      const Operand& s = I.src[0];
      if (d.kind == Operand::Kind::Vector) {  // unpack: mov.b64 {lo, hi}, x
        const uint32_t es = ptx::type_size(I.type) * 8 / d.count;
        FOR_LANES(act)
        uint64_t v = operand(w, lane, s);
        for (uint32_t e = 0; e < d.count; ++e)
          if (d.vec[e] != Operand::kNoReg) R[d.vec[e]] = es >= 64 ? v : (v >> (e * es)) & ((1ull << es) - 1);
        END_LANES
      } else if (s.kind == Operand::Kind::Vector) {  // pack: mov.b64 x, {lo, hi}
        const uint32_t es = ptx::type_size(I.type) * 8 / s.count;
        FOR_LANES(act)
        uint64_t v = 0;
        for (uint32_t e = 0; e < s.count; ++e) {
          uint64_t part = s.vec[e] == Operand::kNoReg ? 0 : R[s.vec[e]];
          if (es < 64) part &= (1ull << es) - 1;
          v |= part << (e * es);
        }
        R[d.reg] = v;
        END_LANES
      } else {
        const bool pred = I.type == Type::Pred;
        FOR_LANES(act)
        uint64_t v = operand(w, lane, s);
        R[d.reg] = pred ? (v & 1) : v;
        END_LANES
      }
      return;
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Div:
    case Op::Rem:
    case Op::Abs:
    case Op::Neg:
    case Op::Min:
    case Op::Max:
    case Op::Sad:
    case Op::Mul24:
    case Op::Mad24:
    case Op::Fma:
    case Op::Rcp:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Ex2:
    case Op::Lg2:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Copysign: {
      const int ns = I.nsrc;
      if (I.type == Type::F32) {
        FOR_LANES(act)
        R[d.reg] = float_op<float>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F64) {
        FOR_LANES(act)
        R[d.reg] = float_op<double>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F16) {
        FOR_LANES(act)
        R[d.reg] = float_op<half_t>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      if (I.type == Type::F16x2) {
        FOR_LANES(act)
        R[d.reg] = half2_op(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0);
        END_LANES
        return;
      }
      INT_DISPATCH(I.type, {
        FOR_LANES(act)
        bool carry = L.carry;
        R[d.reg] = int_op<T>(I, src(lane, 0), ns > 1 ? src(lane, 1) : 0, ns > 2 ? src(lane, 2) : 0, &carry);
        L.carry = carry;
        END_LANES
      });
      break;
    }
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Not:
    case Op::Cnot: {
      const bool pred = I.type == Type::Pred;
      FOR_LANES(act)
      uint64_t a = src(lane, 0), b = I.nsrc > 1 ? src(lane, 1) : 0, r = 0;
      switch (I.op) {
        case Op::And: r = a & b; break;
        case Op::Or: r = a | b; break;
        case Op::Xor: r = a ^ b; break;
        case Op::Not: r = ~a; break;
        default: {
          uint32_t sz = ptx::type_size(I.type) * 8;
          uint64_t m = sz >= 64 ? ~0ull : (1ull << sz) - 1;
          r = (a & m) == 0 ? 1 : 0;
        }
      }
      R[d.reg] = pred ? (r & 1) : r;
      END_LANES
      return;
    }
    case Op::Lop3:
      FOR_LANES(act)
      R[d.reg] = lop3(src(lane, 0), src(lane, 1), src(lane, 2), uint32_t(src(lane, 3)));
      END_LANES
      return;
    case Op::Shl:
    case Op::Shr:
      INT_DISPATCH(I.type, {
        FOR_LANES(act)
        R[d.reg] = shift_op<T>(I.op, src(lane, 0), uint32_t(src(lane, 1)));
        END_LANES
      });
      break;
    case Op::Shf:
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), b = uint32_t(src(lane, 1)), c = uint32_t(src(lane, 2));
      const bool clamp = I.shf == ptx::ShfMode::LClamp || I.shf == ptx::ShfMode::RClamp;
      uint32_t n = clamp ? std::min<uint32_t>(c, 32) : (c & 31);
      uint64_t both = (uint64_t(b) << 32) | a;
      const bool left = I.shf == ptx::ShfMode::LWrap || I.shf == ptx::ShfMode::LClamp;
      R[d.reg] = left ? uint32_t((both << n) >> 32) : uint32_t(both >> n);
      END_LANES
      return;
    case Op::Popc:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      R[d.reg] = ptx::type_size(I.type) == 8 ? __builtin_popcountll(a) : __builtin_popcount(uint32_t(a));
      END_LANES
      return;
    case Op::Clz:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      if (ptx::type_size(I.type) == 8)
        R[d.reg] = a ? __builtin_clzll(a) : 64;
      else
        R[d.reg] = uint32_t(a) ? __builtin_clz(uint32_t(a)) : 32;
      END_LANES
      return;
    case Op::Brev:
      FOR_LANES(act)
      uint64_t a = src(lane, 0), r = 0;
      const int n = ptx::type_size(I.type) * 8;
      for (int i = 0; i < n; ++i)
        if (a & (1ull << i)) r |= 1ull << (n - 1 - i);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfind:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      const int n = ptx::type_size(I.type) * 8;
      if (n == 32) a &= 0xffffffffull;
      if (ptx::type_is_signed(I.type)) {
        const bool neg = (a >> (n - 1)) & 1;
        if (neg) a = ~a & (n == 64 ? ~0ull : (1ull << n) - 1);
      }
      int pos = -1;
      for (int i = n - 1; i >= 0; --i)
        if (a & (1ull << i)) {
          pos = i;
          break;
        }
      uint32_t r = pos < 0 ? 0xffffffffu : (I.shiftamt ? uint32_t(n - 1 - pos) : uint32_t(pos));
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfe:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      uint32_t pos = uint32_t(src(lane, 1)) & 0xff, len = uint32_t(src(lane, 2)) & 0xff;
      const uint32_t n = ptx::type_size(I.type) * 8;
      uint64_t r = 0;
      bool sign = false;
      if (ptx::type_is_signed(I.type)) {
        uint32_t sb = std::min(pos + len, n) - 1;
        sign = len != 0 && ((a >> std::min(sb, n - 1)) & 1);
      }
      for (uint32_t i = 0; i < n; ++i) {
        bool bit;
        if (i < len && pos + i < n)
          bit = (a >> (pos + i)) & 1;
        else
          bit = ptx::type_is_signed(I.type) ? sign : false;
        if (bit) r |= 1ull << i;
      }
      if (len == 0) r = 0;
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bfi:
      FOR_LANES(act)
      uint64_t f = src(lane, 0), b = src(lane, 1);
      uint32_t pos = uint32_t(src(lane, 2)) & 0xff, len = uint32_t(src(lane, 3)) & 0xff;
      const uint32_t n = ptx::type_size(I.type) * 8;
      uint64_t r = b;
      for (uint32_t i = 0; i < len && pos + i < n; ++i) {
        uint64_t bit = 1ull << (pos + i);
        r = (r & ~bit) | (((f >> i) & 1) ? bit : 0);
      }
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Bmsk:
      // bmsk.b32 d, a, b: b ones starting at bit a (PTX ISA "bmsk"); .clamp limits both to 32,
      // .wrap takes them modulo 32.
      FOR_LANES(act)
      uint32_t pos = uint32_t(src(lane, 0)), len = uint32_t(src(lane, 1));
      if (I.clamp) {
        pos = std::min(pos, 32u);
        len = std::min(len, 32u);
      } else {
        pos &= 31;
        len &= 31;
      }
      uint64_t ones = len >= 64 ? ~0ull : ((1ull << len) - 1);
      R[d.reg] = pos >= 32 ? 0u : uint32_t(ones << pos);
      END_LANES
      return;
    case Op::Szext:
      // szext.mode.{u32,s32} d, a, b: keep the low b bits of a, sign- or zero-extended.
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), n = uint32_t(src(lane, 1));
      n = I.clamp ? std::min(n, 32u) : (n & 31);
      uint32_t r;
      if (n >= 32)
        r = a;
      else if (n == 0)
        r = 0;
      else if (ptx::type_is_signed(I.type))
        r = uint32_t(int32_t(a << (32 - n)) >> (32 - n));
      else
        r = a & ((1u << n) - 1);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Prmt:
      FOR_LANES(act)
      R[d.reg] = prmt(uint32_t(src(lane, 0)), uint32_t(src(lane, 1)), uint32_t(src(lane, 2)), I.prmt);
      END_LANES
      return;
    case Op::Fns:
      FOR_LANES(act)
      uint32_t mask = uint32_t(src(lane, 0)), base = uint32_t(src(lane, 1));
      int32_t offset = int32_t(src(lane, 2));
      uint32_t r = 0xffffffffu;
      if (offset == 0) {
        r = (base < 32 && ((mask >> base) & 1)) ? base : 0xffffffffu;
      } else if (offset > 0) {
        int count = 0;
        for (uint32_t i = base; i < 32; ++i)
          if ((mask >> i) & 1 && ++count == offset) {
            r = i;
            break;
          }
      } else {
        int count = 0;
        for (int i = int(base); i >= 0; --i)
          if ((mask >> i) & 1 && --count == offset) {
            r = uint32_t(i);
            break;
          }
      }
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Dp4a:
    case Op::Dp2a:
      FOR_LANES(act)
      uint32_t a = uint32_t(src(lane, 0)), b = uint32_t(src(lane, 1));
      int64_t acc = int32_t(src(lane, 2));
      const bool as = ptx::type_is_signed(I.type), bs = ptx::type_is_signed(I.type2);
      if (I.op == Op::Dp4a) {
        for (int k = 0; k < 4; ++k) {
          int64_t x = as ? int8_t(a >> (8 * k)) : uint8_t(a >> (8 * k));
          int64_t y = bs ? int8_t(b >> (8 * k)) : uint8_t(b >> (8 * k));
          acc += x * y;
        }
      } else {
        for (int k = 0; k < 2; ++k) {
          int64_t x = as ? int16_t(a >> (16 * k)) : uint16_t(a >> (16 * k));
          int64_t y = bs ? int8_t(b >> (8 * k)) : uint8_t(b >> (8 * k));
          acc += x * y;
        }
      }
      R[d.reg] = uint32_t(acc);
      END_LANES
      return;
    case Op::Setp:
      FOR_LANES(act)
      bool r = compare_typed(I.type, I.cmp, src(lane, 0), src(lane, 1));
      bool c = I.nsrc > 2 ? (src(lane, 2) & 1) : false;
      R[d.reg] = combine(I.boolop, r, c);
      if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = combine(I.boolop, !r, c);
      END_LANES
      return;
    case Op::Set:
      FOR_LANES(act)
      bool r = compare_typed(I.type2, I.cmp, src(lane, 0), src(lane, 1));
      if (I.nsrc > 2) r = combine(I.boolop, r, src(lane, 2) & 1);
      R[d.reg] = I.type == Type::F32 ? (r ? to_bits(1.0f) : 0) : (r ? 0xffffffffu : 0);
      END_LANES
      return;
    case Op::Selp:
      FOR_LANES(act)
      R[d.reg] = (src(lane, 2) & 1) ? src(lane, 0) : src(lane, 1);
      END_LANES
      return;
    case Op::Slct:
      FOR_LANES(act)
      uint64_t c = src(lane, 2);
      bool ge = I.type2 == Type::F32 ? !(from_bits<float>(c) < 0.0f) : int32_t(c) >= 0;
      R[d.reg] = ge ? src(lane, 0) : src(lane, 1);
      END_LANES
      return;
    case Op::Cvt:
      FOR_LANES(act)
      R[d.reg] = convert(src(lane, 0), I.type, I.type2, I.rnd, I.sat, I.ftz);
      END_LANES
      return;
    case Op::Cvta: {
      uint64_t base = 0;
      switch (I.space) {
        case Space::Shared: base = kSharedWindow; break;
        case Space::Local: base = kLocalWindow; break;
        default: base = 0; break;
      }
      const bool to_generic = I.cvta != ptx::CvtaDir::FromGeneric;
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      uint64_t r = to_generic ? a + base : a - base;
      if (ptx::type_size(I.type) == 4) r &= 0xffffffffull;
      R[d.reg] = r;
      END_LANES
      return;
    }
    case Op::Isspacep:
      FOR_LANES(act)
      uint64_t a = src(lane, 0);
      bool sh = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
      bool lo = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
      bool r = I.space == Space::Shared ? sh : I.space == Space::Local ? lo : (!sh && !lo);
      R[d.reg] = r;
      END_LANES
      return;
    case Op::Testp:
      FOR_LANES(act)
      double v = I.type == Type::F64 ? from_bits<double>(src(lane, 0)) : double(from_bits<float>(src(lane, 0)));
      bool r = false;
      switch (I.testp) {
        case ptx::TestpMode::Finite: r = std::isfinite(v); break;
        case ptx::TestpMode::Infinite: r = std::isinf(v); break;
        case ptx::TestpMode::Number: r = !std::isnan(v); break;
        case ptx::TestpMode::NotANumber: r = std::isnan(v); break;
        case ptx::TestpMode::Normal: r = std::isnormal(v); break;
        case ptx::TestpMode::Subnormal: r = std::fpclassify(v) == FP_SUBNORMAL; break;
        default: r = std::isfinite(v); break;
      }
      R[d.reg] = r;
      END_LANES
      return;
    default: unsupported = true; break;
  }
  if (unsupported) {
    int lane = __builtin_ctz(act);
    fault(w, lane, I, LaunchStatus::Fault, "unsupported instruction form",
          fmt::format("{} with type .{} is not modelled by the simulator", ptx::op_name(I.op), ptx::type_name(I.type)));
  }
}

}  // namespace synclab::sim
