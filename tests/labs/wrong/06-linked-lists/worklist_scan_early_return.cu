// WRONG SOLUTION (lab 06, task 4c): a thread with no items returns before block_exclusive_scan,
// whose barriers and shared array then miss it.
// WRONG-REPLACES: worklist.cu
// WRONG-FAILS: lab06 task4c push_scan fills the worklist with a block scan and one atomic per block
// WRONG-MESSAGE: first report: init at worklist_scan_early_return\.cu:[0-9]+
// WRONG-FIX:   if (counts[t] == 0) return;\n  int total; =>   int total;
// WRONG-MESSAGE: every thread of the block must call it
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
  const int c = counts[t];
  int incl = c;
  for (int off = 1; off < 32; off *= 2) {
    const int v = __shfl_up_sync(0xffffffffu, incl, off);
    if (lane >= off) incl += v;
  }
  const int total = __shfl_sync(0xffffffffu, incl, 31);
  int base = 0;
  if (lane == 0) base = atomicAdd(size, total);
  base = __shfl_sync(0xffffffffu, base, 0);
  write_items(worklist, base + incl - c, t, c);
}

// ---- 4c -------------------------------------------------------------------------------------------
__global__ void push_scan(const int* counts, int* worklist, int* size) {
  __shared__ int base;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (counts[t] == 0) return;
  int total;
  const int offset = block_exclusive_scan(counts[t], &total);
  if (threadIdx.x == 0) base = atomicAdd(size, total);
  __syncthreads();
  write_items(worklist, base + offset, t, counts[t]);
}

}  // namespace lab06
