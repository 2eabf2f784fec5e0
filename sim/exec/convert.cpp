#include "sim/exec/convert.h"

#include <cfenv>
#include <cmath>
#include <limits>

#include "sim/exec/values.h"

namespace synclab::sim {

using ptx::Rounding;
using ptx::Type;

namespace {

// Reads the source as a signed, unsigned or floating value.
struct Num {
  enum Kind { Signed, Unsigned, Floating } kind;
  int64_t s = 0;
  uint64_t u = 0;
  double f = 0;  // f16/f32 widen exactly
  bool is_f32 = false;
};

Num read(uint64_t b, Type t, bool ftz_in) {
  Num n{Num::Unsigned};
  switch (t) {
    case Type::S8:
      n = {Num::Signed};
      n.s = int8_t(b);  // NOLINT(bugprone-signed-char-misuse): an .s8 value is sign-extended on purpose
      break;
    case Type::S16:
      n = {Num::Signed};
      n.s = int16_t(b);
      break;
    case Type::S32:
      n = {Num::Signed};
      n.s = int32_t(b);
      break;
    case Type::S64:
      n = {Num::Signed};
      n.s = int64_t(b);
      break;
    case Type::U8:
    case Type::B8: n.u = uint8_t(b); break;
    case Type::U16:
    case Type::B16: n.u = uint16_t(b); break;
    case Type::U32:
    case Type::B32: n.u = uint32_t(b); break;
    case Type::U64:
    case Type::B64: n.u = b; break;
    case Type::Pred: n.u = b & 1; break;
    case Type::F16:
      n = {Num::Floating};
      n.f = double(from_bits<half_t>(b));
      break;
    case Type::BF16:
      n = {Num::Floating};
      n.f = double(bitcast<float>(uint32_t(uint16_t(b)) << 16));
      break;
    case Type::F32: {
      n = {Num::Floating};
      float f = from_bits<float>(b);
      n.f = ftz_in ? ftz(f) : f;
      n.is_f32 = true;
      break;
    }
    case Type::F64:
      n = {Num::Floating};
      n.f = from_bits<double>(b);
      break;
    default: break;
  }
  return n;
}

int mode_of(Rounding r) {
  switch (r) {
    case Rounding::Rz:
    case Rounding::Rzi: return FE_TOWARDZERO;
    case Rounding::Rm:
    case Rounding::Rmi: return FE_DOWNWARD;
    case Rounding::Rp:
    case Rounding::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// Runs f under the rounding mode of r (directed modes only change the environment briefly).
template <class F>
auto with_rounding(Rounding r, F f) {
  int mode = mode_of(r);
  if (mode == FE_TONEAREST) return f();
  int old = std::fegetround();
  std::fesetround(mode);
  auto v = f();
  std::fesetround(old);
  return v;
}

template <class I>
uint64_t float_to_int(double x, Rounding rnd) {
  if (std::isnan(x)) return 0;
  double r = round_integral(x, rnd == Rounding::None ? Rounding::Rzi : rnd);
  constexpr double lo = double(std::numeric_limits<I>::min());
  constexpr double hi = double(std::numeric_limits<I>::max());
  if (r <= lo) return to_bits<I>(std::numeric_limits<I>::min());
  if (r >= hi) return to_bits<I>(std::numeric_limits<I>::max());
  return to_bits<I>(static_cast<I>(r));
}

template <class I>
uint64_t int_to_int(const Num& n, bool sat) {
  if (!sat) {
    return n.kind == Num::Signed ? to_bits<I>(static_cast<I>(n.s)) : to_bits<I>(static_cast<I>(n.u));
  }
  constexpr auto lo = std::numeric_limits<I>::min();
  constexpr auto hi = std::numeric_limits<I>::max();
  if (n.kind == Num::Signed) {
    if (std::is_unsigned_v<I> && n.s < 0) return to_bits<I>(0);
    if (n.s < 0 && static_cast<int64_t>(lo) > n.s) return to_bits<I>(lo);
    if (n.s > 0 && static_cast<uint64_t>(n.s) > static_cast<uint64_t>(hi)) return to_bits<I>(hi);
    return to_bits<I>(static_cast<I>(n.s));
  }
  if (n.u > static_cast<uint64_t>(hi)) return to_bits<I>(hi);
  return to_bits<I>(static_cast<I>(n.u));
}

}  // namespace

double round_integral(double x, Rounding rnd) {
  switch (rnd) {
    case Rounding::Rzi: return std::trunc(x);
    case Rounding::Rmi: return std::floor(x);
    case Rounding::Rpi: return std::ceil(x);
    case Rounding::Rni: return std::nearbyint(x);  // ties to even in the default environment
    default: return x;
  }
}

uint64_t convert(uint64_t b, Type dst, Type src, Rounding rnd, bool sat, bool ftz_flag) {
  Num n = read(b, src, ftz_flag);
  const bool dst_float = dst == Type::F16 || dst == Type::F32 || dst == Type::F64 || dst == Type::BF16;
  if (n.kind == Num::Floating && !dst_float) {
    switch (dst) {
      case Type::S8: return float_to_int<int8_t>(n.f, rnd);
      case Type::S16: return float_to_int<int16_t>(n.f, rnd);
      case Type::S32: return float_to_int<int32_t>(n.f, rnd);
      case Type::S64: return float_to_int<int64_t>(n.f, rnd);
      case Type::U8:
      case Type::B8: return float_to_int<uint8_t>(n.f, rnd);
      case Type::U16:
      case Type::B16: return float_to_int<uint16_t>(n.f, rnd);
      case Type::U32:
      case Type::B32: return float_to_int<uint32_t>(n.f, rnd);
      case Type::U64:
      case Type::B64: return float_to_int<uint64_t>(n.f, rnd);
      default: return 0;
    }
  }
  if (n.kind != Num::Floating && !dst_float) {
    switch (dst) {
      case Type::S8: return int_to_int<int8_t>(n, sat);
      case Type::S16: return int_to_int<int16_t>(n, sat);
      case Type::S32: return int_to_int<int32_t>(n, sat);
      case Type::S64: return int_to_int<int64_t>(n, sat);
      case Type::U8:
      case Type::B8: return int_to_int<uint8_t>(n, sat);
      case Type::U16:
      case Type::B16: return int_to_int<uint16_t>(n, sat);
      case Type::U32:
      case Type::B32: return int_to_int<uint32_t>(n, sat);
      case Type::U64:
      case Type::B64: return int_to_int<uint64_t>(n, sat);
      case Type::Pred: return (n.kind == Num::Signed ? n.s != 0 : n.u != 0) ? 1 : 0;
      default: return 0;
    }
  }
  // Destination is floating point.
  if (n.kind != Num::Floating) {
    // Integer to float: round once, directly from the integer.
    switch (dst) {
      case Type::F64:
        return to_bits(with_rounding(
            rnd, [&] { return n.kind == Num::Signed ? static_cast<double>(n.s) : static_cast<double>(n.u); }));
      case Type::F32: {
        float f = with_rounding(
            rnd, [&] { return n.kind == Num::Signed ? static_cast<float>(n.s) : static_cast<float>(n.u); });
        if (sat) f = saturate(f);
        return to_bits(f);
      }
      case Type::F16: {
        float f = n.kind == Num::Signed ? static_cast<float>(n.s) : static_cast<float>(n.u);
        return to_bits(static_cast<half_t>(f));
      }
      case Type::BF16: {
        float f = n.kind == Num::Signed ? static_cast<float>(n.s) : static_cast<float>(n.u);
        uint32_t u = bitcast<uint32_t>(f);
        u += 0x7fff + ((u >> 16) & 1);
        return u >> 16;
      }
      default: return 0;
    }
  }
  // Float to float.
  double x = n.f;
  const bool integral = rnd == Rounding::Rni || rnd == Rounding::Rzi || rnd == Rounding::Rmi || rnd == Rounding::Rpi;
  if (integral) x = round_integral(x, rnd);
  switch (dst) {
    case Type::F64: {
      double d = sat ? saturate(x) : x;
      return to_bits(d);
    }
    case Type::F32: {
      float f;
      if (src == Type::F64)
        f = with_rounding(integral ? Rounding::Rn : rnd, [&] { return static_cast<float>(x); });
      else
        f = static_cast<float>(x);
      if (ftz_flag) f = ftz(f);
      if (sat) f = saturate(f);
      return to_bits(f);
    }
    case Type::F16: {
      half_t h = with_rounding(integral ? Rounding::Rn : rnd, [&] {
        return src == Type::F64 ? static_cast<half_t>(x) : static_cast<half_t>(static_cast<float>(x));
      });
      return to_bits(h);
    }
    case Type::BF16: {
      float f = static_cast<float>(x);
      uint32_t u = bitcast<uint32_t>(f);
      if (std::isnan(f)) return 0x7fc0;
      if (rnd == Rounding::Rz) return u >> 16;
      u += 0x7fff + ((u >> 16) & 1);
      return u >> 16;
    }
    default: return 0;
  }
}

}  // namespace synclab::sim
