// Lab 07, find the bug: odd-even transposition sort of the keys of a whole grid in one launch.
//
// n = 2 x blocks x threads keys in global memory. Phase p (p = 0 .. n - 1) compare-exchanges
// the pairs (k, k + 1) with k = 2g + p % 2, one pair per thread g (threads whose pair falls off
// the end do nothing), so that after n phases the keys are in ascending order. A block's threads
// touch keys of the neighbouring blocks at the tile's edges, so the blocks meet at a grid barrier
// after every phase. The barrier is a two-level tree: the blocks of a group of kGroupSize count
// in the group's counter, the last of a group to arrive counts in the top counter, and every block
// waits until the top counter reaches the number of groups times the round. No counter is ever
// reset. All blocks must be resident at once (4 blocks of 8 threads). The check compares the keys
// with std::sort of the input.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 8;
constexpr unsigned kGroupSize = 2;

// Every thread of every block calls it with round = 1, 2, ...; group_count holds one counter per
// group of kGroupSize blocks (the last group may have fewer).
__device__ void tree_barrier(unsigned* group_count, unsigned* top, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned group = blockIdx.x / kGroupSize;
    const unsigned groups = (gridDim.x + kGroupSize - 1) / kGroupSize;
    const unsigned members = min(kGroupSize, gridDim.x - group * kGroupSize);
    __threadfence();
    if (atomicAdd(&group_count[group], 1u) == members * round - 1) {
      atomicAdd(top, 1u);
    }
    while (*(volatile unsigned*)top < groups * round) {
    }
    __threadfence();
  }
  __syncthreads();
}

__global__ void transposition_sort(unsigned* keys, int n, unsigned* group_count, unsigned* top) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < n; ++p) {
    const int k = 2 * g + p % 2;
    if (k + 1 < n) {
      const unsigned a = keys[k], b = keys[k + 1];
      if (a > b) {
        keys[k] = b;
        keys[k + 1] = a;
      }
    }
    tree_barrier(group_count, top, unsigned(p + 1));
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
  const int n = 2 * kBlocks * kThreads;
  std::vector<unsigned> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = unsigned((i * 53 + 29) % 97);

  unsigned *d_keys = nullptr, *counters = nullptr;
  const int groups = (kBlocks + kGroupSize - 1) / kGroupSize;
  CHECK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&counters, (groups + 1) * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(counters, 0, (groups + 1) * sizeof(unsigned)));
  transposition_sort<<<kBlocks, kThreads>>>(d_keys, n, counters, counters + groups);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n);
  CHECK(cudaMemcpy(got.data(), d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(counters));

  std::sort(keys.begin(), keys.end());
  for (int i = 0; i < n; ++i) {
    if (got[i] != keys[i]) {
      std::printf("wrong key at position %d: %u, expected %u\n", i, got[i], keys[i]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
