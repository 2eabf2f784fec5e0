// Lab 07, task 10: a grid barrier of your own design (README, "Task 10"). One design that meets
// the contract of lab07_kernels.cuh: a central counter that the last block to arrive resets, and a
// generation word that it moves on. (Another, a combining tree of counters, is
// tests/labs/designs/07-global-barriers/own_barrier_tree.cu; both pass the graded tests.)
//
// Why it survives a second launch on the same state: nothing in it depends on `round`. A waiting
// block reads the generation before it arrives and waits for it to change; the counter is back at
// 0 after every round, so the next round (of this launch or the next) counts from 0.
//
// state[0]: the arrivals of the current round; state[1]: the generation (the rounds completed).
#include "lab07_kernels.cuh"

namespace lab07 {

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  (void)round;
  unsigned* count = &state[0];
  volatile unsigned* generation = &state[1];
  __syncthreads();  // every thread of the block has done its round's writes
  if (threadIdx.x == 0) {
    // Read before arriving: the generation cannot move before this block has arrived, and this
    // thread saw the last move (it waited for it, or made it), so it reads the newest value.
    const unsigned mine = *generation;
    __threadfence();  // the block's writes are visible before its arrival is
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      // The last to arrive: every other block's arrival (and what it released) is seen; reset the
      // counter before anyone can arrive for the next round, then release them all.
      __threadfence();
      *(volatile unsigned*)count = 0;
      __threadfence();
      *generation = mine + 1;
    } else {
      while (*generation == mine) {
      }
      __threadfence();  // what the other blocks wrote before arriving is visible to our reads
    }
  }
  __syncthreads();  // no thread of the block leaves before thread 0 saw the round complete
}

// ---- provided: the exchange ----------------------------------------------------------------------
__global__ void exchange_own(const unsigned* in, unsigned* out, unsigned* slots, unsigned* state, int rounds) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;  // thread t of the next block
  unsigned x = in[i];
  for (int r = 0; r < rounds; ++r) {
    unsigned* buf = slots + (r & 1) * n;
    buf[i] = x;
    own_grid_barrier(state, r + 1);
    x = exchange_step(x, buf[j], r);
  }
  out[i] = x;
}

}  // namespace lab07
