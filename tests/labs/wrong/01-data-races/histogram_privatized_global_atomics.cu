// WRONG SOLUTION (lab 01, task 2b): the "privatized" histogram that is the atomic one again:
// every mark is counted with an atomic on the global bins, and no block keeps bins of its own in
// shared memory. The counts are right and nothing races, so only the number of global atomics
// (one per mark instead of at most one per bin and block) shows that the lesson was missed.
// WRONG-REPLACES: histogram.cu
// WRONG-FAILS: lab01 task2b histogram_privatized counts the 80 students under every schedule
// WRONG-MESSAGE: made 80 atomics on global memory, but at most 14 are allowed \(7 bins x 2 blocks\)
// WRONG-MESSAGE: the counting must go to the block's bins in shared memory
//
// 2a. histogram_atomic: every count with a global atomic.
// 2b. histogram_privatized: each block counts into its own bins in shared memory, then adds them
//     to the global bins once per bin.
#include "lab01_kernels.cuh"

namespace lab01 {

// Provided. Racy: bins[g]++ is a load, an add and a store, and many threads hit the same bin.
__global__ void histogram_racy(const int* marks, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bins[grade_of(marks[i])]++;
  }
}

// ---- 2a ------------------------------------------------------------------------------------------
__global__ void histogram_atomic(const int* marks, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[grade_of(marks[i])], 1u);
  }
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void histogram_privatized(const int* marks, int n, unsigned* bins) {
  // Atomics already make the count exact, so the shared bins seemed unnecessary.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[grade_of(marks[i])], 1u);
  }
}

}  // namespace lab01
