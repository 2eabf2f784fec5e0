// WRONG SOLUTION (lab 01, task 1a): predicts that blocks of one thread always end with one
// increment each (<<<2,1>>>: 2), forgetting that both threads may load 0 before either stores
// (the lost update).
// WRONG-REPLACES: increment.cu
// WRONG-FAILS: lab01 task1a predict every final value of the racy increment with blocks of one thread
// WRONG-MESSAGE: your prediction .*: \{2\}
// WRONG-MESSAGE: not the set of possible final values: it misses 1 possible one
//
//
// 1a. Predict every final value of x[0] after increment_racy<<<blocks, threads>>>, starting from
//     0, for any launch.
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
    // Each block's thread adds its 1.
    return {blocks};
  }
  // The lanes of one warp execute the load together, then the store together.
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
