// WRONG SOLUTION (lab 05, task 1b): the double-buffered scan writes out from `to` after the loop.
// The last level wrote `to` and the swap made it `from`: `to` still holds the level before the
// last, so every value past the first n/2 of a segment misses half its prefix.
// WRONG-REPLACES: hillis.cu
// WRONG-FAILS: lab05 task1b scan_hillis_double scans with one barrier per level
// WRONG-MESSAGE: out\[[0-9]+\] is [0-9]+, expected [0-9]+
// WRONG-MESSAGE: out holds the buffer of the level before the last
//
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
__global__ void scan_hillis_fixed(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned off = 1; off < blockDim.x; off *= 2) {
    int before = 0;
    if (t >= off) before = seg[t - off];
    __syncthreads();  // every read of this level before any write
    if (t >= off) seg[t] += before;
    __syncthreads();  // every write of this level before the next level's reads
  }
}

// ---- 1b ----------------------------------------------------------------------------------------
__global__ void scan_hillis_double(const int* in, int* out) {
  __shared__ int buf[2 * 1024];  // two buffers of blockDim.x (keep the name: scenario double-buffer draws it)
  const unsigned n = blockDim.x, t = threadIdx.x;
  int* from = buf;
  int* to = buf + n;
  from[t] = in[blockIdx.x * n + t];
  __syncthreads();
  for (unsigned off = 1; off < n; off *= 2) {
    to[t] = t >= off ? from[t] + from[t - off] : from[t];
    __syncthreads();  // the next level reads what every thread wrote to `to`
    int* swap = from;
    from = to;
    to = swap;
  }
  out[blockIdx.x * n + t] = to[t];
}

}  // namespace lab05
