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
  // TODO(2a): the racy kernel's loop, with a count that cannot be lost (about 3 lines)
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void histogram_privatized(const int* marks, int n, unsigned* bins) {
  // TODO(2b): (about 11 lines)
  //   - declare this block's private bins: __shared__ unsigned local[7];
  //   - zero this block's bins in local[] (the block may have fewer than 7 threads);
  //   - make sure every bin is zero before any thread counts;
  //   - count this thread's marks into local[];
  //   - make sure the whole block has counted before any bin is read;
  //   - add each non-zero local bin to bins[] (other blocks add to the same bins).
  //   The grader counts this kernel's global atomics on the simulator: at most 7 per block.
}

}  // namespace lab01
