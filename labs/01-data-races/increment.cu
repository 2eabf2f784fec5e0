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
  if (threads_per_block == 1) {
    // TODO(1a): `blocks` threads, each alone in its block: every value x[0] can end with, e.g.
    // return {3, 4}; for any number of blocks (a loop of about 2 lines)
    return {};
  }
  // TODO(1a): blocks of several threads: the lanes of one warp execute the load together, then
  // the store together. How many warps does the launch have? (about 4 lines)
  return {};
}

// ---- 1b: the increment without the race ----------------------------------------------------------
__global__ void increment_fixed(int* x) {
  // TODO(1b): add 1 to x[0] so that no increment is ever lost (about 1 line)
}

}  // namespace lab01
