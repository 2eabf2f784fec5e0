// Lab 05, task 1: Hillis-Steele (seed 004, slides "Prefix Sum": v5, the in-place version with
// its data race, v6 "separating R and W in time", and the question that follows it: can this be
// done with a single __syncthreads()?).
//
// 1a. scan_hillis_fixed: the in-place scan without the race (a temporary, two barriers a level).
// 1b. scan_hillis_double: one barrier a level, reading one buffer and writing the other.
#include "lab05_kernels.cuh"

namespace lab05 {

// Provided: the slides' v5 (with `>=`, so that thread off adds a[0] too). At level off, thread t
// reads a[t - off] while thread t - off may be adding into it at the same level.
__global__ void scan_hillis_racy(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned off = 1; off < blockDim.x; off *= 2) {
    if (t >= off) seg[t] += seg[t - off];
    __syncthreads();
  }
}

// ---- 1a ----------------------------------------------------------------------------------------
// The same scan as scan_hillis_racy, in place, with the same result, and no race.
__global__ void scan_hillis_fixed(int* a) {
  // TODO(1a): levels off = 1, 2, 4, ... < n: thread t >= off adds seg[t - off] into seg[t]; separate
  // each level's reads from its writes: a temporary and a second barrier, both barriers outside
  // the if (about 7 lines)
  // this block's segment and this thread: int* seg = a + blockIdx.x * blockDim.x; const unsigned t = threadIdx.x;
  (void)a;
}

// ---- 1b ----------------------------------------------------------------------------------------
// out's segment = the inclusive scan of in's segment, with one __syncthreads() per level: each
// level reads one buffer and writes the other, then the two swap.
__global__ void scan_hillis_double(const int* in, int* out) {
  __shared__ int buf[2 * 1024];  // two buffers of blockDim.x (keep the name: scenario double-buffer draws it)
  const unsigned n = blockDim.x, t = threadIdx.x;
  // TODO(1b): load in's value into the first buffer and wait for every thread; at each level
  // off = 1, 2, 4, ...: to[t] = from[t] (+ from[t - off] when t >= off), one barrier, swap the
  // buffers; at the end write out[blockIdx.x * n + t] (about 12 lines)
  (void)in;
  (void)out;
  (void)n;
  (void)t;
  (void)&buf;  // (keeps the compiler quiet until TODO(1b) uses it)
}

}  // namespace lab05
