// cvt: conversion between every pair of PTX scalar types, with the rounding modifiers and
// saturation of the PTX ISA ("cvt" in the instruction-set reference): float-to-integer
// conversions clamp to the destination range and map NaN to 0; integer-to-integer conversions
// extend by the source type's signedness, then truncate or (with .sat) clamp.
#pragma once

#include <cstdint>

#include "sim/ptx/ir.h"

namespace synclab::sim {

uint64_t convert(uint64_t src_bits, ptx::Type dst, ptx::Type src, ptx::Rounding rnd, bool sat, bool ftz);

// Rounds x to an integral value with a PTX integer rounding modifier (.rni/.rzi/.rmi/.rpi).
double round_integral(double x, ptx::Rounding rnd);

}  // namespace synclab::sim
