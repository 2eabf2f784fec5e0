// WRONG SOLUTION (lab 03, task 6): the ticket lock without the fence after the wait: the thread whose
// turn it is reads the counter before anything orders it after the previous holder's section.
// WRONG-REPLACES: own_lock.cu
// WRONG-FAILS: lab03 task6 own_locked runs every section alone under both warp and memory models
// WRONG-MESSAGE: race at (own_lock_ticket_no_acquire\.cu|lab03_kernels\.cuh):[0-9]+
// WRONG-MESSAGE: Put a __threadfence\(\) after the read that saw it is your turn, before the section
// WRONG-FIX:     if (*serving == ticket) {\n      s.run(); =>     if (*serving == ticket) {\n      __threadfence();\n      s.run();
//
// Lab 03, task 6: a lock of your own design (README, task 6).
#include "lab03_kernels.cuh"

namespace lab03 {

__device__ void own_locked(unsigned* state, const OwnSection& s) {
  const unsigned ticket = atomicAdd(&state[0], 1u);
  volatile unsigned* serving = &state[1];
  bool done = false;
  while (!done) {
    if (*serving == ticket) {
      s.run();
      __threadfence();
      *serving = ticket + 1;
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
