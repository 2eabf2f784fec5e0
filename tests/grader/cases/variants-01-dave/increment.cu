// Lab 01, task 1: ++x[0] (seed 004, slides "atomics": the dkernel that increments x[0]).
//
// 1a. Predict every final value of x[0] after increment_racy<<<2,1>>> and <<<1,2>>>, starting
//     from 0, then compare with what `lab01 increment` finds by exploring schedules.
// 1b. Write increment_fixed: the same increment, with the race removed.
#include <vector>

#include "lab01.h"
#include "lab01_kernels.cuh"

namespace lab01 {

// Provided. ++x[0] is a load, an add and a store: two threads may both load the old value.
__global__ void increment_racy(int* x) {
  ++x[0];
}

// ---- 1a: your prediction ----------------------------------------------------------------------
std::vector<int> predicted_final_values(int blocks, int threads_per_block) {
  if (blocks == 2 && threads_per_block == 1) {
    // Two blocks: each thread's load and store may interleave with the other's.
    return {1, 2};
  }
  if (blocks == 1 && threads_per_block == 2) {
    // Two lanes of one warp: both execute the load together, then the store together.
    return {1};
  }
  return {};
}

// ---- 1b: the increment without the race ----------------------------------------------------------
__global__ void increment_fixed(int* x) {
  atomicAdd(&x[0], 1);
}

}  // namespace lab01
