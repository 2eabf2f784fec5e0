// Lab 01, task 2: the grading histogram (seed 004, classwork "Grading": 80 students, grades
// S/A/B/C/D/E/U). Every kernel walks the marks with a grid-stride loop and counts grade_of(mark).
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
  // (no barrier: a warp may count into a bin that another warp has not zeroed yet; the zeroing
  // is the first thing a block does, so on a GPU it nearly always comes first)
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[grade_of(marks[i])], 1u);
  }
  __syncthreads();  // every count of this block is in before the bins are read
  for (int g = threadIdx.x; g < 7; g += blockDim.x) {
    if (local[g] != 0) atomicAdd(&bins[g], local[g]);
  }
}

}  // namespace lab01
