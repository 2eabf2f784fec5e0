// DESIGN-REPLACES: own_lock.cu
// DESIGN-PASSES: lab03 task6 own_locked runs every section alone under both warp and memory models
// DESIGN-PASSES: lab03 task6 own_locked costs at most two atomic operations per section
// Lab 03, task 6: a second design that meets the contract (the reference solution's is a ticket
// lock): an array lock in the manner of Anderson's queue lock. A ticket picks a slot of 32
// (ticket mod 32), and its thread waits on that slot alone until it holds the ticket's number;
// leaving, it writes the next ticket's number into the next slot. Waiters poll different words, so
// a release wakes one waiter instead of all of them. All slots are 0 before the launch: ticket 0
// finds its number already there. A slot holds ticket t only after the holder of t - 1 left, and
// the thread of ticket t + 32 waits for t + 32, so slots are reused safely however many threads
// wait.
//
// state[0]: the next ticket; state[1 + i]: slot i.
#include "lab03_kernels.cuh"

namespace lab03 {

constexpr unsigned kSlots = 32;

__device__ void own_locked(unsigned* state, const OwnSection& s) {
  const unsigned ticket = atomicAdd(&state[0], 1u);
  volatile unsigned* mine = &state[1 + ticket % kSlots];
  volatile unsigned* next = &state[1 + (ticket + 1) % kSlots];
  bool done = false;
  while (!done) {
    if (*mine == ticket) {
      __threadfence();
      s.run();
      __threadfence();
      *next = ticket + 1;
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
