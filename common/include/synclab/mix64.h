// splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a 64-bit value whose bits all depend on every bit of x. The simulator's seeded
// choices (dispatch order, warp splits, the relaxed memory model's draws) take their randomness from
// it, so that a seed replays them.
#pragma once

#include <cstdint>

namespace synclab {

inline uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace synclab
