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

// Both kernels sum their block's segment seg[0..n) (n = blockDim.x, a power of two) in place and
// leave the sum in seg[0].

// ---- 1a ----------------------------------------------------------------------------------------
__global__ void block_sum_interleaved(int* a) {
  // TODO(1a): levels of stride s = 1, 2, 4, ... < n: thread t adds seg[t + s] into seg[t] when t
  // is a multiple of 2s; every level waits for the one before it (about 4 lines)
  // this block's segment and this thread: int* seg = a + blockIdx.x * blockDim.x; const unsigned t = threadIdx.x;
  (void)a;
}

// ---- 1b ----------------------------------------------------------------------------------------
__global__ void block_sum_sequential(int* a) {
  // TODO(1b): levels of offset off = n/2, n/4, ..., 1: thread t < off adds seg[t + off] into
  // seg[t] (about 4 lines)
  // this block's segment and this thread: int* seg = a + blockIdx.x * blockDim.x; const unsigned t = threadIdx.x;
  (void)a;
}

// ---- 1c: divergence ------------------------------------------------------------------------------
// At level `level` (0 = the first) of a block of `threads` threads (a power of two, at least 32),
// how many warps hold both lanes that add and lanes that do not?
int predicted_divergent_warps(Addressing addressing, int threads, int level) {
  // TODO(1c): which lanes add at that level, for each addressing; count the warps that are split
  // (about 6 lines)
  (void)addressing;
  (void)threads;
  (void)level;
  return -1;
}

// ---- 3: the barriers -----------------------------------------------------------------------------
// block_sum_skip_barrier (below) is 1b's tree with barrier k left out. For which k does it still
// give the right sum with no report under every schedule of `model` ("its" or "lockstep"), with
// blocks of `threads` threads (a power of two, at least 32)?
std::set<int> predicted_removable_barriers(const std::string& model, int threads) {
  // TODO(3): for each barrier, who writes before it and who reads after it; are they one warp
  // (about 8 lines)
  (void)model;
  (void)threads;
  return {};
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
