// WRONG SOLUTION (lab 07, task 10): a counter and a generation word, right in every run, but the
// wait polls the generation with an atomic (atomicAdd(generation, 0)) instead of a load: every
// poll is an atomic operation, far more than two per block and round.
// WRONG-REPLACES: own_barrier.cu
// WRONG-FAILS: lab07 task10 own_grid_barrier keeps its contract over two launches on one state under both warp and memory models
// WRONG-MESSAGE: atomic operations for [0-9]+ blocks in 7 rounds, more than two per block and round
// WRONG-MESSAGE: a wait that polls with atomics \(atomicAdd\(x, 0\), atomicCAS: one per poll\)
// WRONG-FIX: while (atomicAdd(generation, 0u) == mine) { => while (*(volatile unsigned*)generation == mine) {
//
// Lab 07, task 10: a grid barrier of your own design (README, "Task 10").
#include "lab07_kernels.cuh"

namespace lab07 {

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  (void)round;
  unsigned* count = &state[0];
  unsigned* generation = &state[1];
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned mine = *(volatile unsigned*)generation;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      __threadfence();
      *(volatile unsigned*)count = 0;
      __threadfence();
      *(volatile unsigned*)generation = mine + 1;
    } else {
      while (atomicAdd(generation, 0u) == mine) {
      }
    }
    __threadfence();
  }
  __syncthreads();
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
