// Register values: every register holds 64 bits; an instruction reads and writes them at its own
// type. Narrow values are stored zero- or sign-extended and the bits above the type's width are
// ignored on reading. Floats are stored as their IEEE bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace synclab::sim {

using half_t = _Float16;

template <class To, class From>
inline To bitcast(From f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}

template <class T>
inline T from_bits(uint64_t b) {
  if constexpr (std::is_same_v<T, float>)
    return bitcast<float>(uint32_t(b));
  else if constexpr (std::is_same_v<T, double>)
    return bitcast<double>(b);
  else if constexpr (std::is_same_v<T, half_t>)
    return bitcast<half_t>(uint16_t(b));
  else
    return static_cast<T>(b);
}

template <class T>
inline uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, float>)
    return bitcast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>)
    return bitcast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, half_t>)
    return bitcast<uint16_t>(v);
  else if constexpr (std::is_same_v<T, bool>)
    return v ? 1 : 0;
  else if constexpr (std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  else
    return static_cast<uint64_t>(v);
}

// a * b modulo 2^bits of U (an unsigned type). The product is formed in at least unsigned int:
// 16-bit operands would otherwise be promoted to int, where 0xffff * 0xffff overflows.
template <class U>
inline U wrapping_mul(U a, U b) {
  static_assert(std::is_unsigned_v<U>, "wrapping_mul takes unsigned operands");
  using P = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return U(P(a) * P(b));
}

// Flush a subnormal to a zero of the same sign (.ftz).
inline float ftz(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }
inline double ftz(double f) { return f; }  // .ftz applies to .f32 only

inline float saturate(float f) { return std::isnan(f) ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f; }
inline double saturate(double f) { return std::isnan(f) ? 0.0 : f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f; }

}  // namespace synclab::sim
