// Lab 04, task 4: the last warp (seed 004, slides "Barriers" and the taxonomy of primitives:
// __syncwarp is the warp's barrier; seed 001 on independent thread scheduling).
//
// 4a. block_sum_shuffle: each warp adds its 32 values with __shfl_down_sync, then one warp adds
//     the warps' sums: one __syncthreads in all.
// 4b. block_sum_tail: the shared-memory tree whose last warp goes on alone, made safe under
//     independent thread scheduling.
// 4c. Predict under which warp model block_sum_tail_unsafe races.
#include <string>

#include "lab04.h"
#include "lab04_kernels.cuh"

namespace lab04 {

// ---- 4a ----------------------------------------------------------------------------------------
// The sum of v over the calling warp's 32 lanes, in lane 0. Every lane calls it.
__device__ int warp_sum(int v) {
  // TODO(4a): five __shfl_down_sync steps with the full mask (about 2 lines)
  return v;
}

// out[blockIdx.x] = the sum of the block's blockDim.x values (a multiple of 32).
__global__ void block_sum_shuffle(const int* in, int* out) {
  __shared__ int warp_sums[32];  // one sum per warp (keep the name: scenario shuffle-sums draws it)
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  // TODO(4a): warp_sum of each thread's value; lane 0 of each warp stores its warp's sum in
  // warp_sums; one barrier; warp 0 adds the warps' sums with warp_sum and lane 0 writes the
  // result (about 8 lines)
  (void)in;
  (void)out;
  (void)lane;
  (void)warp;
  (void)warp_sums[0];  // (keeps the compiler quiet until TODO(4a) uses it)
}

// ---- the tree down to 64 values (provided, used by both tails) -----------------------------------
__device__ void tree_down_to_64(volatile int* s, const int* in) {
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 32; off /= 2) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
}

// Provided: the tail as it was written before Volta. Once 64 values are left, warp 0 finishes
// without barriers, trusting its 32 lanes to run each line together.
__global__ void block_sum_tail_unsafe(const int* in, int* out) {
  __shared__ int s[1024];
  volatile int* vs = s;  // volatile: every access goes to memory, none is kept in a register
  tree_down_to_64(vs, in);
  const unsigned t = threadIdx.x;
  if (t < 32) {
    vs[t] += vs[t + 32];
    vs[t] += vs[t + 16];
    vs[t] += vs[t + 8];
    vs[t] += vs[t + 4];
    vs[t] += vs[t + 2];
    vs[t] += vs[t + 1];
    if (t == 0) out[blockIdx.x] = vs[0];
  }
}

// ---- 4b ------------------------------------------------------------------------------------------
__global__ void block_sum_tail(const int* in, int* out) {
  __shared__ int s[1024];
  volatile int* vs = s;
  tree_down_to_64(vs, in);
  const unsigned t = threadIdx.x;
  // TODO(4b): warp 0 finishes the last 64 values as block_sum_tail_unsafe does, but so that no
  // lane reads a word while another lane of the warp writes it (about 10 lines)
  (void)t;
  (void)out;
}

// ---- 4c ------------------------------------------------------------------------------------------
// Does block_sum_tail_unsafe race under `model` ("its": Volta and later; "lockstep": before)?
bool predicted_tail_races(const std::string& model) {
  // TODO(4c) (about 1 line)
  (void)model;
  return false;
}

}  // namespace lab04
