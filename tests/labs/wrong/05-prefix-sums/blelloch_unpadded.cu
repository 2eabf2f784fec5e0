// WRONG SOLUTION (lab 05, task 2b): Blelloch's scan for 2b with no padding: the helper that places element i
// returns i, so the layout is scan_blelloch's and the strided levels still send a warp's threads
// to one bank. The scan is right; the wavefronts are 3.5 times what they need.
// WRONG-REPLACES: blelloch.cu
// WRONG-FAILS: lab05 task2b scan_blelloch_padded scans with (nearly) no shared-memory bank conflicts
// WRONG-MESSAGE: bank conflicts: lanes of a warp
// WRONG-FIX: return i; } => return i + i / 32; }
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
    __syncthreads();
  }
  out[base + t] = s[t];
}

// ---- 2b: the same sweeps with element i at s[i + i / 32] -------------------------------------------
// At a level of stride d, thread t touches elements (t + 1) * 2d - 1 and that minus d: 2d apart, so
// from d = 16 on, the 32 threads of a warp hit the same bank (32 four-byte banks). One padding word
// after every 32 elements moves element i by i / 32 words, so elements 32 apart (or 64, 128, ...)
// fall into different banks (Harris, Sengupta and Owens, GPU Gems 3, ch. 39.2.3).
__device__ __forceinline__ unsigned padded(unsigned i) { return i; }

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
