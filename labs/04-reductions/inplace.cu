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
  // TODO(2a): e.g. out.push_back(Conflict{element, reader, writer}); (about 3 lines)
  std::vector<Conflict> out;
  (void)threads;
  return out;
}

// ---- 2b ------------------------------------------------------------------------------------------
// The same compaction as compact_racy, with the same result in seg[0], and no race.
__global__ void compact_fixed(int* a) {
  // TODO(2b): separate each level's reads from its writes: a temporary and one more barrier
  // (about 7 lines)
  // this block's segment and this thread: int* seg = a + blockIdx.x * blockDim.x; const unsigned t = threadIdx.x;
  (void)a;
}

}  // namespace lab04
