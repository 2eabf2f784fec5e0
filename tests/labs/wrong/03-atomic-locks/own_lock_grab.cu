// WRONG SOLUTION (lab 03, task 6): task 1's lock offered for task 6: whoever's atomicCAS finds the
// word free gets it. It keeps mutual exclusion and makes progress, but every waiting thread retries
// its atomicCAS, one atomic per try, and with 32 threads waiting that is far more than two per
// section.
// WRONG-REPLACES: own_lock.cu
// WRONG-FAILS: lab03 task6 own_locked costs at most two atomic operations per section
// WRONG-MESSAGE: atomic operations for 96 sections, more than the harness's one and two of the lock's
// WRONG-MESSAGE: Take your place with one atomic, wait with loads
//
// Lab 03, task 6: a lock of your own design (README, task 6).
#include "lab03_kernels.cuh"

namespace lab03 {

__device__ void own_locked(unsigned* state, const OwnSection& s) {
  bool done = false;
  while (!done) {
    if (atomicCAS(&state[0], 0u, 1u) == 0u) {
      __threadfence();
      s.run();
      __threadfence();
      atomicExch(&state[0], 0u);
      done = true;
    }
  }
}

// ---- provided: the sections ----------------------------------------------------------------------
__global__ void own_count(unsigned* state, int* requests, int* counter, int* entered, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    const OwnSection s{counter, entered, atomicAdd(requests, 1)};
    own_locked(state, s);
  }
}

}  // namespace lab03
