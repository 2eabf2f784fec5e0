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
  // TODO(5a): add the block's sum into *out (about 1 line)
  (void)out;
  (void)sum;
}

// ---- 5b ----------------------------------------------------------------------------------------
__global__ void grid_partials(const int* in, int n, int* partials) {
  const int sum = block_sum(thread_share(in, n));
  // TODO(5b): block b's sum goes to partials[b] (about 1 line)
  (void)partials;
  (void)sum;
}

// Launched <<<1, T>>> after grid_partials: *out = partials[0] + ... + partials[count - 1].
__global__ void sum_partials(const int* partials, int count, int* out) {
  // TODO(5b): each thread adds its share of the partials, then block_sum (about 4 lines)
  (void)partials;
  (void)count;
  (void)out;
}

// ---- 5c ----------------------------------------------------------------------------------------
__global__ void grid_sum_last_block(const int* in, int n, int* partials, unsigned* ticket, int* out) {
  const int sum = block_sum(thread_share(in, n));
  // TODO(5c): thread 0 writes the block's partial and takes a ticket (atomicAdd on *ticket); every
  // thread of the block learns whether it drew the last ticket (a __shared__ bool); that block adds
  // every partial into *out. What must every block's partial be before its ticket is taken?
  // (about 13 lines)
  (void)sum;
  (void)partials;
  (void)ticket;
  (void)out;
}

}  // namespace lab04
