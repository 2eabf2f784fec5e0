// WRONG SOLUTION (lab 06, task 4b): push_warp_aggregated where every lane reserves its own share
// with its own atomicAdd: 32 atomics per warp, as many as 4a's threads make. The items are right
// and each thread's lie together (the lanes of one atomic instruction take their turns in lane
// order), so only counting the atomics tells.
// WRONG-REPLACES: worklist.cu
// WRONG-FAILS: lab06 task4b push_warp_aggregated fills the worklist with one atomic per warp
// WRONG-MESSAGE: atomic operations for [0-9]+ warps
// WRONG-MESSAGE: lane 0 adds the warp's total
// WRONG-FIX:   (void)inclusive;\n  const int base = atomicAdd(size, count);\n  write_items(worklist, base, t, count); =>   const int total = __shfl_sync(0xffffffffu, inclusive, 31);\n  int base = 0;\n  if (lane == 0) base = atomicAdd(size, total);\n  base = __shfl_sync(0xffffffffu, base, 0);\n  write_items(worklist, base + inclusive - count, t, count);
//
// Lab 06, task 4: a worklist in an array (seed 004, classwork "each thread adds elements to a
// worklist", and "Application of Prefix Sum": insert each thread's elements by prefix sum).
//
// 4a. push_atomic: one atomicAdd on *size per item.
// 4b. push_warp_aggregated: one atomicAdd per warp: the warp adds its counts with shuffles, one
//     lane reserves the warp's share, the others learn its start by a shuffle.
// 4c. push_scan: one atomicAdd per block: the provided block_exclusive_scan gives each thread its
//     offset in the block's share.
#include "lab06_kernels.cuh"
#include "lab06_scan.cuh"

namespace lab06 {

// Writes thread t's items from worklist[at] on.
__device__ void write_items(int* worklist, int at, int t, int count) {
  for (int j = 0; j < count; ++j) worklist[at + j] = t * kMaxItems + j;
}

// ---- 4a -------------------------------------------------------------------------------------------
__global__ void push_atomic(const int* counts, int* worklist, int* size) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < counts[t]; ++j) worklist[atomicAdd(size, 1)] = t * kMaxItems + j;
}

// ---- 4b -------------------------------------------------------------------------------------------
__global__ void push_warp_aggregated(const int* counts, int* worklist, int* size) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const int count = counts[t];
  int inclusive = count;  // the counts of lanes 0..lane
  for (int off = 1; off < 32; off *= 2) {
    const int left = __shfl_up_sync(0xffffffffu, inclusive, off);
    if (lane >= off) inclusive += left;
  }
  (void)inclusive;
  const int base = atomicAdd(size, count);
  write_items(worklist, base, t, count);
}

// ---- 4c -------------------------------------------------------------------------------------------
__global__ void push_scan(const int* counts, int* worklist, int* size) {
  __shared__ int base;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int total;
  const int offset = block_exclusive_scan(counts[t], &total);
  if (threadIdx.x == 0) base = atomicAdd(size, total);
  __syncthreads();  // base is written by thread 0 and read by all
  write_items(worklist, base + offset, t, counts[t]);
}

}  // namespace lab06
