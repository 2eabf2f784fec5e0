// WRONG SOLUTION (lab 03, task 6): a ticket lock written the way a CPU programmer would: wait for
// the turn, then the section. Under lockstep, lanes of one warp with different tickets deadlock:
// the lane whose turn it is leaves the wait loop and waits at its end for its warp-mates, which
// spin for turns that only come after its section (task 1's SIMD deadlock).
// WRONG-REPLACES: own_lock.cu
// WRONG-FAILS: lab03 task6 own_locked runs every section alone under both warp and memory models
// WRONG-MESSAGE: the SIMD deadlock of task 1
// WRONG-MESSAGE: Run the section and the release inside the loop, in the branch whose turn it is
// WRONG-FIX:   while (*serving != ticket) {\n  }\n  __threadfence();\n  s.run();\n  __threadfence();\n  *serving = ticket + 1; =>   bool done = false;\n  while (!done) {\n    if (*serving == ticket) {\n      __threadfence();\n      s.run();\n      __threadfence();\n      *serving = ticket + 1;\n      done = true;\n    }\n  }
//
// Lab 03, task 6: a lock of your own design (README, task 6).
#include "lab03_kernels.cuh"

namespace lab03 {

__device__ void own_locked(unsigned* state, const OwnSection& s) {
  const unsigned ticket = atomicAdd(&state[0], 1u);
  volatile unsigned* serving = &state[1];
  while (*serving != ticket) {
  }
  __threadfence();
  s.run();
  __threadfence();
  *serving = ticket + 1;
}

// ---- provided: the sections ----------------------------------------------------------------------
__global__ void own_count(unsigned* state, int* requests, int* counter, int* entered, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    const OwnSection s{counter, entered, atomicAdd(requests, 1)};
    own_locked(state, s);
  }
}

}  // namespace lab03
