// WRONG SOLUTION (lab 07, task 10): a counter and a generation word, without the fence after the
// wait. Thread 0 sees the generation move and its block goes on at once: nothing orders the other
// blocks' slot writes, released before their arrivals, before this block's reads.
// WRONG-REPLACES: own_barrier.cu
// WRONG-FAILS: lab07 task10 own_grid_barrier keeps its contract over two launches on one state under both warp and memory models
// WRONG-MESSAGE: race at own_no_acquire_fence\.cu:[0-9]+
// WRONG-MESSAGE: The waiting side is missing: a __threadfence\(\) right after each thread that waited saw the release
// WRONG-FIX:       while (*generation == mine) {\n      }\n    } =>       while (*generation == mine) {\n      }\n      __threadfence();\n    }
//
// Lab 07, task 10: a grid barrier of your own design (README, "Task 10").
#include "lab07_kernels.cuh"

namespace lab07 {

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  (void)round;
  unsigned* count = &state[0];
  volatile unsigned* generation = &state[1];
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned mine = *generation;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      __threadfence();
      *(volatile unsigned*)count = 0;
      __threadfence();
      *generation = mine + 1;
    } else {
      while (*generation == mine) {
      }
    }
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
