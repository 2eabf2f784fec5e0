// WRONG SOLUTION (lab 04, task 2b): a second barrier added to the slides' compaction, but no
// temporary: within one level thread 1 still writes a[1] while thread 0 reads it.
// WRONG-REPLACES: inplace.cu
// WRONG-FAILS: lab04 task2b compact_fixed compacts in place without a race under every schedule
// WRONG-MESSAGE: race at inplace_extra_barrier_only\.cu:[0-9]+
// WRONG-MESSAGE: read both into a temporary
//
// Lab 04, task 2: the slides' classwork, a tree that compacts in place (seed 004, slides
// "Reductions": "Implement this", and the challenge of a[1] that follows it).
//
// 2a. Name every conflict of the first level: which element, which thread reads it, which writes it.
// 2b. compact_fixed: compact_racy without the race.
#include <vector>

#include "lab04.h"
#include "lab04_kernels.cuh"

namespace lab04 {

// Provided: the classwork as the slides draw it. Level by level the sums of adjacent pairs move
// to the front of the segment: a[t] = a[2t] + a[2t + 1] for t < off.
__global__ void compact_racy(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) seg[t] = seg[2 * t] + seg[2 * t + 1];
    __syncthreads();
  }
}

// ---- 2a ------------------------------------------------------------------------------------------
// The first level of compact_racy in a block of `threads` threads: every element that one thread
// reads and another writes, with the two threads, in increasing order of the element.
std::vector<Conflict> first_level_conflicts(int threads) {
  std::vector<Conflict> out;
  // Thread t writes a[t] (t < threads / 2); thread e / 2 reads a[e]. They differ for every e >= 1.
  for (int e = 1; e < threads / 2; ++e) out.push_back(Conflict{e, e / 2, e});
  return out;
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void compact_fixed(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    __syncthreads();
    if (t < off) seg[t] = seg[2 * t] + seg[2 * t + 1];
    __syncthreads();
  }
}

}  // namespace lab04
