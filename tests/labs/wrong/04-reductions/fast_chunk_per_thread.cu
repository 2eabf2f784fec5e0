// WRONG SOLUTION (lab 04, task 7b): a fast sum where each thread adds a run of consecutive
// elements of its own. The sum is right and race-free (task 7 passes), but the 32 lanes of a
// warp read 32 different runs in each load: every load instruction touches 32 sectors where 4
// would hold its bytes.
// WRONG-REPLACES: fast.cu
// WRONG-FAILS: lab04 task7b reduce_sum_int32 loads whole sectors and makes at most one atomic per warp
// WRONG-MESSAGE: sectors of 32 bytes where [0-9]+ hold the bytes they read
// WRONG-MESSAGE: a grid-stride loop
// WRONG-FIX: for (size_t i = first; i < last; ++i) sum += unsigned(in[i]); => for (size_t i = tid; i < n; i += threads) sum += unsigned(in[i]);
#include "lab04_fast.cuh"

namespace lab04 {

namespace {

constexpr int kBlock = 256;

__global__ void chunk_sum(const int* in, size_t n, unsigned* partials, unsigned* ticket, int* out) {
  const size_t tid = size_t(blockIdx.x) * kBlock + threadIdx.x, threads = size_t(gridDim.x) * kBlock;
  const size_t per = (n + threads - 1) / threads;
  const size_t first = tid * per < n ? tid * per : n, last = first + per < n ? first + per : n;
  unsigned sum = 0;
  for (size_t i = first; i < last; ++i) sum += unsigned(in[i]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ unsigned warp_sums[kBlock / 32];
  __shared__ bool is_last;
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block = 0;
    for (int w = 0; w < kBlock / 32; ++w) block += warp_sums[w];
    partials[blockIdx.x] = block;
    __threadfence();
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (is_last) {
      __threadfence();
      unsigned total = 0;
      for (unsigned b = 0; b < gridDim.x; ++b) total += __ldcg(partials + b);
      *out = int(total);
      *ticket = 0;
    }
  }
}

}  // namespace

int reduce_sum_int32_blocks() { return persistent_grid(chunk_sum, kBlock); }

cudaError_t reduce_sum_int32(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks,
                             cudaStream_t stream) {
  if (blocks <= 0) blocks = reduce_sum_int32_blocks();
  blocks = clamp_blocks(blocks, n, size_t(kBlock) * 16, ws.capacity);
  chunk_sum<<<blocks, kBlock, 0, stream>>>(d_in, n, ws.partials, ws.ticket, d_out);
  return cudaGetLastError();
}

}  // namespace lab04
