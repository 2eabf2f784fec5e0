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
  // TODO(4a): for each of this thread's items, reserve one slot with atomicAdd (about 2 lines)
  (void)counts;
  (void)worklist;
  (void)size;
}

// ---- 4b -------------------------------------------------------------------------------------------
__global__ void push_warp_aggregated(const int* counts, int* worklist, int* size) {
  // TODO(4b): an inclusive scan of the warp's counts with __shfl_up_sync, the warp's total from
  // lane 31, one atomicAdd by lane 0, its result to every lane with __shfl_sync, then
  // write_items (about 12 lines)
  (void)counts;
  (void)worklist;
  (void)size;
}

// ---- 4c -------------------------------------------------------------------------------------------
__global__ void push_scan(const int* counts, int* worklist, int* size) {
  // TODO(4c): block_exclusive_scan, one atomicAdd by thread 0 into a __shared__ base, a barrier,
  // then write_items (about 7 lines)
  (void)counts;
  (void)worklist;
  (void)size;
}

}  // namespace lab06
