// Lab 05, task 2: the work-efficient scan (Blelloch, "Prefix Sums and Their Applications", 1990):
// an up-sweep that builds the reduction tree in place, then a down-sweep that turns it into the
// exclusive scan. About 2n additions for n values, where Hillis-Steele makes about n log2(n).
#include "lab05_kernels.cuh"

namespace lab05 {

// out's segment = the exclusive scan of in's segment (n = blockDim.x, a power of two).
__global__ void scan_blelloch(const int* in, int* out) {
  __shared__ int s[1024];  // keep the name: scenario blelloch-sweeps draws it
  const unsigned n = blockDim.x, t = threadIdx.x, base = blockIdx.x * n;
  // TODO(2): s[t] = in[base + t]; then
  //   up-sweep, d = 1, 2, ..., n/2: thread t with i = (t + 1) * 2d - 1 < n adds s[i - d] into s[i];
  //   s[n - 1] = 0 (one thread);
  //   down-sweep, d = n/2, ..., 1: the same i: left = s[i - d]; s[i - d] = s[i]; s[i] += left;
  // a barrier after the load, after every level and after clearing s[n - 1]; then
  // out[base + t] = s[t] (about 20 lines)
  (void)in;
  (void)out;
  (void)n;
  (void)t;
  (void)base;
  (void)&s;
}

// 2b: the same scan, with the segment laid out in s so that the threads of a warp meet different
// banks at every level. Count the conflicts: build/bin/sim/lab05 blelloch --kernel padded --blocks 4
// --threads 256 --profile (README, task 2b).
__global__ void scan_blelloch_padded(const int* in, int* out) {
  __shared__ int s[1024 + 1024 / 32];
  const unsigned n = blockDim.x, t = threadIdx.x, base = blockIdx.x * n;
  // TODO(2b): scan_blelloch's sweeps, with element i of the segment at s[i + i / 32] (one padding
  // word after every 32) instead of s[i] (about 22 lines)
  (void)in;
  (void)out;
  (void)n;
  (void)t;
  (void)base;
  (void)&s;
}

}  // namespace lab05
