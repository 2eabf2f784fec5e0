// Lab 10, find the bug: blocks in pairs, the second of each pair to finish adds the pair's sums.
//
// kBlocks blocks of one warp each; blocks 2p and 2p + 1 form pair p. Each block sums its 32
// values with shuffles, and lane 0 stores the sum in partial[block] and raises the block's flag
// done[block] (a release store). It then looks at the partner block's flag (an acquire load):
// when it is up, the partner's sum is in, and lane 0 adds the two sums into pair_sum[p]. When both
// blocks of a pair see each other's flag, both store the same pair sum (an atomic store). Every
// pair_sum must be written: the check compares each with the sum computed on the host.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 8;

using device_int = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void pair_sums(const int* in, int* partial, int* done, int* pair_sum) {
  const int lane = int(threadIdx.x), b = int(blockIdx.x), partner = b ^ 1;
  int sum = in[32 * b + lane];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);

  if (lane == 0) {
    partial[b] = sum;
    device_int(done[b]).store(1, cuda::std::memory_order_release);
    if (device_int(done[partner]).load(cuda::std::memory_order_acquire) == 1) {
      device_int(pair_sum[b / 2]).store(sum + partial[partner], cuda::std::memory_order_relaxed);
    }
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

int main() {
  const int n = 32 * kBlocks, pairs = kBlocks / 2;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 17) % 23 + 1;

  int *d_in = nullptr, *d_partial = nullptr, *d_done = nullptr, *d_pair_sum = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_partial, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_done, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_pair_sum, pairs * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_partial, 0, kBlocks * sizeof(int)));
  CHECK(cudaMemset(d_done, 0, kBlocks * sizeof(int)));
  CHECK(cudaMemset(d_pair_sum, 0, pairs * sizeof(int)));
  pair_sums<<<kBlocks, 32>>>(d_in, d_partial, d_done, d_pair_sum);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(pairs);
  CHECK(cudaMemcpy(got.data(), d_pair_sum, pairs * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_done));
  CHECK(cudaFree(d_pair_sum));

  for (int p = 0; p < pairs; ++p) {
    int expected = 0;
    for (int i = 64 * p; i < 64 * (p + 1); ++i) expected += in[i];
    if (got[p] != expected) {
      std::printf("wrong sum of pair %d: %d, expected %d\n", p, got[p], expected);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
