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
  // TODO(2a): let exactly one thread run the two lines below; the others skip them without
  // waiting. Think about what must NOT happen at the end of the section. (about 2 lines)
  (void)flag;
  (void)entered;
  (void)chosen;
  (void)me;
  // *entered = *entered + 1;
  // *chosen = me;
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void single_per_block(int* entered, int* chosen) {
  // TODO(2b): one flag per block, `__shared__ int flag;` (shared memory starts with no defined
  // value): give it a value before anyone tests it, then the same as 2a with the section below
  // (about 6 lines)
  (void)entered;
  (void)chosen;
  // entered[blockIdx.x] = entered[blockIdx.x] + 1;
  // chosen[blockIdx.x] = threadIdx.x;
}

}  // namespace lab03
