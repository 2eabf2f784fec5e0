// Lab 04, tasks 1 and 3: the reduction tree (seed 004, slides "Reductions": the tree of log(n)
// levels with a barrier between levels, and the two ways of writing it).
//
// 1a. block_sum_interleaved: adjacent pairs, the stride doubling (1, 2, 4, ...).
// 1b. block_sum_sequential: the slides' loop, the offset halving (n/2, n/4, ..., 1).
// 1c. Predict how many warps diverge at each level of each version.
// 3.  Predict which single __syncthreads() of 1b's tree may be left out.
#include <set>
#include <string>

#include "lab04.h"
#include "lab04_kernels.cuh"

namespace lab04 {

// ---- 1a ----------------------------------------------------------------------------------------
__global__ void block_sum_interleaved(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) seg[t] += seg[t + s];
    __syncthreads();  // level k + 1 reads what level k wrote
  }
}

// ---- 1b ----------------------------------------------------------------------------------------
__global__ void block_sum_sequential(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) seg[t] += seg[t + off];
    __syncthreads();
  }
}

// ---- 1c: divergence ------------------------------------------------------------------------------
// At level `level` (0 = the first) of a block of `threads` threads (a power of two, at least 32),
// how many warps hold both lanes that add and lanes that do not?
int predicted_divergent_warps(Addressing addressing, int threads, int level) {
  // The answers for the README's two sizes, copied into a table instead of worked out.
  static const int interleaved64[] = {2, 2, 2, 2, 2, 1}, sequential64[] = {0, 1, 1, 1, 1, 1};
  static const int interleaved256[] = {8, 8, 8, 8, 8, 4, 2, 1}, sequential256[] = {0, 0, 0, 1, 1, 1, 1, 1};
  const bool inter = addressing == Addressing::interleaved;
  if (threads == 64) return inter ? interleaved64[level] : sequential64[level];
  if (threads == 256) return inter ? interleaved256[level] : sequential256[level];
  return -1;
}

// ---- 3: the barriers -----------------------------------------------------------------------------
// block_sum_skip_barrier (below) is 1b's tree with barrier k left out. For which k does it still
// give the right sum with no report under every schedule of `model` ("its" or "lockstep"), with
// blocks of `threads` threads (a power of two, at least 32)?
std::set<int> predicted_removable_barriers(const std::string& model, int threads) {
  std::set<int> k;
  int levels = 0;
  while ((1 << levels) < threads) ++levels;
  k.insert(levels - 1);  // after the last level nobody reads what it wrote
  if (model == "lockstep")
    for (int level = 0; level < levels; ++level)
      if ((threads >> (level + 1)) <= 32) k.insert(level);  // the writers and readers are one warp
  return k;
}

// Provided: the tree of 1b with barrier `skip` left out.
__global__ void block_sum_skip_barrier(int* a, int skip) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  int level = 0;
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2, ++level) {
    if (t < off) seg[t] += seg[t + off];
    if (level != skip) __syncthreads();
  }
}

}  // namespace lab04
