// WRONG SOLUTION (lab 04, task 5c): last block done, every block fences before taking its ticket,
// but the last block reads the partials right after its ticket, without the fence that acquires them.
// WRONG-REPLACES: grid.cu
// WRONG-FAILS: lab04 task5c grid_sum_last_block lets the last block add the partials under both memory models
// WRONG-MESSAGE: race at grid_last_block_no_acquire_fence\.cu:[0-9]+
// WRONG-MESSAGE: without acquiring them -- in the last block, put __threadfence\(\) after the ticket, before reading the partials\)
// WRONG-FIX:     is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;\n =>     is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;\n    if (is_last) __threadfence();\n
//
// Lab 04, task 5: a sum over the whole grid, three ways (seed 004, slides "Reductions": atomics
// "add sequentiality"; "Barriers": the end of a kernel is the only barrier of the whole grid, and
// the taxonomy's __threadfence).
//
// 5a. grid_sum_atomic: each block adds its sum into the result with one atomicAdd.
// 5b. grid_partials + sum_partials: two launches; the end of the first is the grid's barrier.
// 5c. grid_sum_last_block: one launch; the block that finishes last adds the partials.
#include "lab04_kernels.cuh"

namespace lab04 {

// Provided: the sum of v over the calling block, in thread 0 (every thread of the block calls it;
// blockDim.x is a power of two, at most 1024). The shared tree of task 1b.
__device__ int block_sum(int v) {
  __shared__ int s[1024];
  const unsigned t = threadIdx.x;
  s[t] = v;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
  return s[0];  // (every thread may read it: the last barrier ordered it)
}

// Provided: the sum of this thread's share of in[0..n) (a grid-stride loop).
__device__ int thread_share(const int* in, int n) {
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  return v;
}

// ---- 5a ----------------------------------------------------------------------------------------
__global__ void grid_sum_atomic(const int* in, int n, int* out) {
  const int sum = block_sum(thread_share(in, n));
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// ---- 5b ----------------------------------------------------------------------------------------
__global__ void grid_partials(const int* in, int n, int* partials) {
  const int sum = block_sum(thread_share(in, n));
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void sum_partials(const int* partials, int count, int* out) {
  int v = 0;
  for (int b = threadIdx.x; b < count; b += blockDim.x) v += partials[b];
  v = block_sum(v);
  if (threadIdx.x == 0) *out = v;
}

// ---- 5c ----------------------------------------------------------------------------------------
__global__ void grid_sum_last_block(const int* in, int n, int* partials, unsigned* ticket, int* out) {
  __shared__ bool is_last;
  const int sum = block_sum(thread_share(in, n));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // our partial is visible to every block before our ticket is
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // every thread of the block learns is_last
  if (!is_last) return;
  int v = 0;
  for (int b = threadIdx.x; b < int(gridDim.x); b += blockDim.x) v += partials[b];
  v = block_sum(v);
  if (threadIdx.x == 0) *out = v;
}

}  // namespace lab04
