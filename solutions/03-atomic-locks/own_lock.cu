// Lab 03, task 6: a lock of your own design (README, task 6). One design that meets the
// contract of lab03_kernels.cuh: a ticket lock. (Another, an array of slots each waiter watches
// on its own, is tests/labs/designs/03-atomic-locks/own_lock_slots.cu; both pass the graded tests.)
//
// state[0] hands out tickets (one atomicAdd per section), state[1] is the ticket being served.
// One atomic per section however many threads wait (they wait with loads), and threads enter in the
// order of their tickets: one that asked first enters first, one that comes back queues behind. The wait is task 1's loop shape: the
// section and the release inside the loop, in the branch whose turn it is, so that lanes of one
// warp under lockstep take their turns inside the loop instead of waiting at its exit for a
// warp-mate that never gets to run (the SIMD deadlock).
#include "lab03_kernels.cuh"

namespace lab03 {

__device__ void own_locked(unsigned* state, const OwnSection& s) {
  const unsigned ticket = atomicAdd(&state[0], 1u);
  volatile unsigned* serving = &state[1];
  bool done = false;
  while (!done) {
    if (*serving == ticket) {
      __threadfence();  // acquire: the section after the previous holder's release
      s.run();
      __threadfence();  // release: the section's writes before the next ticket's turn
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
