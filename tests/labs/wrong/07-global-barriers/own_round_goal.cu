// WRONG SOLUTION (lab 07, task 10): task 3's barrier offered as the design of task 10. One counter
// that is never reset and a goal of gridDim.x x round: right in the first launch; in the second,
// which counts its rounds from 1 again on the state the first left, the counter already stands
// above every goal, and no block waits for the others.
// WRONG-REPLACES: own_barrier.cu
// WRONG-FAILS: lab07 task10 own_grid_barrier keeps its contract over two launches on one state under both warp and memory models
// WRONG-MESSAGE: the first launch was right and the second (was not|got stuck)
// WRONG-MESSAGE: reset what counts the arrivals
// WRONG-FIX:     atomicAdd(count, 1u);\n    const unsigned goal = gridDim.x * round;\n    while (*(volatile unsigned*)count < goal) {\n    }\n    __threadfence(); =>     const unsigned mine = *(volatile unsigned*)&state[1];\n    if (atomicAdd(count, 1u) == gridDim.x - 1) {\n      __threadfence();\n      *(volatile unsigned*)count = 0;\n      __threadfence();\n      *(volatile unsigned*)&state[1] = mine + 1;\n    } else {\n      while (*(volatile unsigned*)&state[1] == mine) {\n      }\n    }\n    __threadfence();
//
// Lab 07, task 10: a grid barrier of your own design (README, "Task 10").
#include "lab07_kernels.cuh"

namespace lab07 {

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  unsigned* count = &state[0];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    const unsigned goal = gridDim.x * round;
    while (*(volatile unsigned*)count < goal) {
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
