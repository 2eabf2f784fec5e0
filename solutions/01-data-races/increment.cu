// Lab 01, task 1: ++x[0] (seed 004, slides "atomics": the dkernel that increments x[0]).
//
// 1a. Predict every final value of x[0] after increment_racy<<<blocks, threads>>>, starting from
//     0, for any launch: graded on <<<2,1>>> and <<<1,2>>>, or on your own two launches when your
//     course grades with student ids (`lab01 increment` names them and explores their schedules).
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
  // The lanes of one warp execute the load together, then the store together, so a warp acts as
  // one thread here; the warps' loads and stores interleave. x[0] ends with 1 when every warp
  // loads 0 before any stores, with W (the number of warps) when they take turns, and with
  // anything between when some overlap.
  const int warps = blocks * ((threads_per_block + 31) / 32);
  std::vector<int> values;
  for (int v = 1; v <= warps; ++v) values.push_back(v);
  return values;
}

// ---- 1b: the increment without the race ----------------------------------------------------------
__global__ void increment_fixed(int* x) {
  atomicAdd(&x[0], 1);
}

}  // namespace lab01
