// Lab 04, find the bug: how many values of an array exceed a threshold, counted in one launch.
//
// The kBlocks x kThreads threads share out in[0..n) with a grid-stride loop; each counts its
// values above kThreshold, and each block adds its threads' counts with a shared tree
// (sequential addressing, a __syncthreads() after every level). The blocks cannot wait for each
// other, so the last block to finish adds the blocks' counts ("last block done"): thread 0 of
// every block writes its block's count to partials[b] and takes a ticket with atomicAdd; the
// block that draws ticket kBlocks - 1 adds all partials and writes the total to *count. The
// check expects the host's count and the ticket at kBlocks.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;
constexpr int kValues = 1000;
constexpr int kThreshold = 700;

// The sum of v over the calling block (every thread calls it), returned to every thread.
__device__ int block_sum(int v) {
  __shared__ int s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = v;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
  return s[0];
}

__global__ void count_above(const int* in, int n, int* partials, unsigned* ticket, int* count) {
  __shared__ bool last;
  int mine = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    mine += in[i] > kThreshold;
  const int block_count = block_sum(mine);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_count;
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (last) __threadfence();
  }
  __syncthreads();
  if (!last) return;
  int total = 0;
  for (int b = threadIdx.x; b < int(gridDim.x); b += blockDim.x) total += partials[b];
  total = block_sum(total);
  if (threadIdx.x == 0) *count = total;
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  std::vector<int> values(kValues);
  for (int i = 0; i < kValues; ++i) values[i] = (i * 7919 + 13) % 1000;

  int *d_values = nullptr, *d_partials = nullptr, *d_count = nullptr;
  unsigned* d_ticket = nullptr;
  CHECK(cudaMalloc(&d_values, kValues * sizeof(int)));
  CHECK(cudaMalloc(&d_partials, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_values, values.data(), kValues * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_count, 0, sizeof(int)));
  CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
  count_above<<<kBlocks, kThreads>>>(d_values, kValues, d_partials, d_ticket, d_count);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int count = 0;
  unsigned ticket = 0;
  CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&ticket, d_ticket, sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_values));
  CHECK(cudaFree(d_partials));
  CHECK(cudaFree(d_count));
  CHECK(cudaFree(d_ticket));

  int want = 0;
  for (int v : values) want += v > kThreshold;
  if (ticket != unsigned(kBlocks)) {
    std::printf("wrong ticket: %u, expected %d\n", ticket, kBlocks);
    return 1;
  }
  if (count != want) {
    std::printf("wrong count: %d, expected %d\n", count, want);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
