// WRONG SOLUTION (lab 01, task 2b): the privatized histogram without the barrier between
// counting and flushing. A thread adds local[g] to the global bins while other threads of its
// block may still be counting into local[g]: a race in shared memory, and counts go missing.
// WRONG-REPLACES: histogram.cu
// WRONG-FAILS: lab01 task2b histogram_privatized counts the 80 students under every schedule
// WRONG-MESSAGE: race at histogram_no_final_barrier\.cu:[0-9]+
// WRONG-MESSAGE: replay: build/bin/sim/lab01 histogram --kernel privatized .*--model [a-z]+ --sched [a-z]+
//
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
  __shared__ unsigned local[7];
  for (int g = threadIdx.x; g < 7; g += blockDim.x) local[g] = 0;
  __syncthreads();  // every bin is zero before anyone counts
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[grade_of(marks[i])], 1u);
  }
  // (missing: __syncthreads() before the bins are read)
  for (int g = threadIdx.x; g < 7; g += blockDim.x) {
    if (local[g] != 0) atomicAdd(&bins[g], local[g]);
  }
}

}  // namespace lab01
