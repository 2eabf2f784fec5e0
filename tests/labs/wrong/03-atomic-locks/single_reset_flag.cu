// WRONG SOLUTION (lab 03, task 2a): single_grid that clears the flag at the end of the single
// section, as an unlock would. A thread that tests the flag after that finds it free and runs the
// section a second time (seed 004: the flag must not be reset).
// WRONG-REPLACES: single.cu
// WRONG-FAILS: lab03 task2a single_grid lets exactly one thread of the grid in under every schedule
// WRONG-MESSAGE: threads ran the single section|race at single_reset_flag\.cu:[0-9]+
//
// Lab 03, task 2: `single`, a section that exactly one arbitrary thread runs (seed 004, slides
// "Single using atomicCAS").
//
// 2a. single_grid: one thread of the whole grid.
// 2b. single_per_block: one thread of each block, with the flag in shared memory.
#include "lab03_kernels.cuh"

namespace lab03 {

// ---- 2a ------------------------------------------------------------------------------------------
// flag is a global word, zero before the launch.
__global__ void single_grid(int* flag, int* entered, int* chosen) {
  const int me = blockIdx.x * blockDim.x + threadIdx.x;
  // The flag is never reset: a thread that comes later must still see it taken.
  if (atomicCAS(flag, 0, 1) == 0) {
    *entered = *entered + 1;
    *chosen = me;
    __threadfence();
    atomicExch(flag, 0);  // "release" the single section
  }
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void single_per_block(int* entered, int* chosen) {
  __shared__ int flag;  // one flag per block; shared memory starts with no defined value
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();  // every thread tests the flag only after it was cleared
  if (atomicCAS_block(&flag, 0, 1) == 0) {
    entered[blockIdx.x] = entered[blockIdx.x] + 1;
    chosen[blockIdx.x] = threadIdx.x;
  }
}

}  // namespace lab03
