// WRONG SOLUTION (lab 04, task 7b): a fast sum where every thread adds its grid-stride share into
// the result with its own atomicAdd. Right and race-free (task 7 passes), with coalesced loads,
// but one atomic per thread on one address: they serialize.
// WRONG-REPLACES: fast.cu
// WRONG-FAILS: lab04 task7b reduce_sum_int32 loads whole sectors and makes at most one atomic per warp
// WRONG-MESSAGE: atomic operations on global memory for [0-9]+ warps
// WRONG-MESSAGE: hand each block's sum to the grid with one atomic
// WRONG-FIX:   atomicAdd(reinterpret_cast<unsigned*>(out), sum); =>   for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);\n  __shared__ unsigned warp_sums[kBlock / 32];\n  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;\n  __syncthreads();\n  if (threadIdx.x == 0) {\n    unsigned block = 0;\n    for (int w = 0; w < kBlock / 32; ++w) block += warp_sums[w];\n    atomicAdd(reinterpret_cast<unsigned*>(out), block);\n  }
#include "lab04_fast.cuh"

namespace lab04 {

namespace {

constexpr int kBlock = 256;

__global__ void atomic_sum(const int* in, size_t n, int* out) {
  const size_t tid = size_t(blockIdx.x) * kBlock + threadIdx.x, threads = size_t(gridDim.x) * kBlock;
  unsigned sum = 0;
  for (size_t i = tid; i < n; i += threads) sum += unsigned(in[i]);
  atomicAdd(reinterpret_cast<unsigned*>(out), sum);
}

}  // namespace

int reduce_sum_int32_blocks() { return persistent_grid(atomic_sum, kBlock); }

cudaError_t reduce_sum_int32(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks,
                             cudaStream_t stream) {
  if (blocks <= 0) blocks = reduce_sum_int32_blocks();
  blocks = clamp_blocks(blocks, n, size_t(kBlock) * 16, ws.capacity);
  cudaError_t e = cudaMemsetAsync(d_out, 0, sizeof(int), stream);
  if (e != cudaSuccess) return e;
  atomic_sum<<<blocks, kBlock, 0, stream>>>(d_in, n, d_out);
  return cudaGetLastError();
}

}  // namespace lab04
