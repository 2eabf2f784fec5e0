// WRONG SOLUTION (lab 07, task 10): the lock-free barrier of task 5 made reusable (generations
// instead of round numbers), with an arrival word per block after the generation: right while
// the grid has fewer blocks than state has words, and a write outside state with 40 blocks.
// Block 0's threads watch the blocks in a strided loop, so more blocks than threads is no
// problem; the memory is.
// WRONG-REPLACES: own_barrier.cu
// WRONG-FAILS: lab07 task10 own_grid_barrier holds more blocks than threads per block (40 blocks of 32 threads)
// WRONG-MESSAGE: your barrier touched memory outside its state
// WRONG-MESSAGE: keep what the barrier needs in a fixed number of words
//
// Lab 07, task 10: a grid barrier of your own design (README, "Task 10").
#include "lab07_kernels.cuh"

namespace lab07 {

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  (void)round;
  volatile unsigned* generation = &state[0];
  volatile unsigned* arrived = &state[1];  // one word per block
  __shared__ unsigned mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    mine = *generation;
    __threadfence();
    arrived[blockIdx.x] = mine + 1;
  }
  __syncthreads();
  if (blockIdx.x == 0) {
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      while (arrived[b] != mine + 1) {
      }
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      *generation = mine + 1;
    }
  } else if (threadIdx.x == 0) {
    while (*generation == mine) {
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
