// Lab 06: a block-wide exclusive prefix sum for task 4c (provided). Lab 05 is about writing scans;
// this one is here so that the worklist does not depend on it. Hillis and Steele's scan (log2(n)
// steps, each thread adds the value `off` places to its left), with a barrier between a step's
// reads and its writes.
//
//   int total;
//   int offset = block_exclusive_scan(counts[t], &total);   // every thread of the block calls it
//   // offset = counts of threads 0..t-1 of this block; total = the whole block's sum
#pragma once

#include <cuda_runtime.h>

namespace lab06 {

// Every thread of the block must call it (it has barriers), with blockDim.x <= 1024. Returns the
// sum of the values of the threads before this one in the block; *total gets the block's sum.
__device__ inline int block_exclusive_scan(int value, int* total) {
  __shared__ int s[1024];
  const int t = threadIdx.x, n = blockDim.x;
  s[t] = value;
  __syncthreads();
  for (int off = 1; off < n; off *= 2) {
    const int left = t >= off ? s[t - off] : 0;
    __syncthreads();  // every read of this step before any write
    s[t] += left;
    __syncthreads();  // every write before the next step's reads
  }
  const int inclusive = s[t];
  *total = s[n - 1];
  __syncthreads();  // s may be reused by a second call
  return inclusive - value;
}

}  // namespace lab06
