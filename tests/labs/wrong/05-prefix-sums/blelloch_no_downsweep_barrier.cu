// WRONG SOLUTION (lab 05, task 2): Blelloch's scan with the barrier of the down-sweep's levels left
// out. A level's swap-and-add reads s[i] and s[i - d] that other threads wrote at the level before.
// WRONG-REPLACES: blelloch.cu
// WRONG-FAILS: lab05 task2 scan_blelloch computes the exclusive scan with an up-sweep and a down-sweep
// WRONG-MESSAGE: race at blelloch_no_downsweep_barrier\.cu:[0-9]+
// WRONG-MESSAGE: a __syncthreads\(\) after each level
//
// Lab 05, task 2: the work-efficient scan (Blelloch, "Prefix Sums and Their Applications", 1990):
// an up-sweep that builds the reduction tree in place, then a down-sweep that turns it into the
// exclusive scan. About 2n additions for n values, where Hillis-Steele makes about n log2(n).
#include "lab05_kernels.cuh"

namespace lab05 {

__global__ void scan_blelloch(const int* in, int* out) {
  __shared__ int s[1024];  // keep the name: scenario blelloch-sweeps draws it
  const unsigned n = blockDim.x, t = threadIdx.x, base = blockIdx.x * n;
  s[t] = in[base + t];
  __syncthreads();
  // ---- 2: up-sweep: at stride d, the element at the end of each pair of d-blocks adds the end of
  // the first one.
  for (unsigned d = 1; d < n; d *= 2) {
    const unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) s[i] += s[i - d];
    __syncthreads();
  }
  // ---- 2: down-sweep: clear the root, then at each stride swap-and-add down the tree.
  if (t == 0) s[n - 1] = 0;
  __syncthreads();
  for (unsigned d = n / 2; d >= 1; d /= 2) {
    const unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) {
      const int left = s[i - d];
      s[i - d] = s[i];
      s[i] += left;
    }
  }
  out[base + t] = s[t];
}

// ---- 2b: the same sweeps with element i at s[i + i / 32] -------------------------------------------
// At a level of stride d, thread t touches elements (t + 1) * 2d - 1 and that minus d: 2d apart, so
// from d = 16 on, the 32 threads of a warp hit the same bank (32 four-byte banks). One padding word
// after every 32 elements moves element i by i / 32 words, so elements 32 apart (or 64, 128, ...)
// fall into different banks (Harris, Sengupta and Owens, GPU Gems 3, ch. 39.2.3).
__device__ __forceinline__ unsigned padded(unsigned i) { return i + i / 32; }

__global__ void scan_blelloch_padded(const int* in, int* out) {
  __shared__ int s[1024 + 1024 / 32];
  const unsigned n = blockDim.x, t = threadIdx.x, base = blockIdx.x * n;
  s[padded(t)] = in[base + t];
  __syncthreads();
  for (unsigned d = 1; d < n; d *= 2) {
    const unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) s[padded(i)] += s[padded(i - d)];
    __syncthreads();
  }
  if (t == 0) s[padded(n - 1)] = 0;
  __syncthreads();
  for (unsigned d = n / 2; d >= 1; d /= 2) {
    const unsigned i = (t + 1) * 2 * d - 1;
    if (i < n) {
      const int left = s[padded(i - d)];
      s[padded(i - d)] = s[padded(i)];
      s[padded(i)] += left;
    }
    __syncthreads();
  }
  out[base + t] = s[padded(t)];
}

}  // namespace lab05
