// Lab 07, find the bug: a ring of cells smoothed for several steps inside one launch.
//
// The ring holds n = blocks x threads cells, one per thread. A step replaces every cell at once:
// c[i] = c[i - 1] + 2 c[i] + c[i + 1] (indices modulo n, unsigned arithmetic that wraps). Step s
// reads buffer s % 2 and writes buffer (s + 1) % 2, so the cells at a block's edges read cells
// that the neighbouring block wrote in the step before. Between two steps the blocks meet at a
// grid barrier: one counter in global memory, raised by one per block and step and never reset,
// so that step s is done when the counter reaches blocks x s. All blocks must be resident at once
// (3 blocks of 64 threads). The check compares the ring after kSteps steps with the same
// smoothing computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 3;
constexpr int kThreads = 64;
constexpr int kSteps = 4;

// Every thread of every block calls it after step `step` (1, 2, ...).
__device__ void grid_barrier(unsigned* arrived, unsigned step) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(arrived, 1u);
    while (*(volatile unsigned*)arrived < gridDim.x * step) {
    }
    __threadfence();
  }
}

// cells: 2 x n words, buffer 0 holding the ring before the first step. After `steps` steps the
// ring is in buffer steps % 2.
__global__ void smooth_ring(unsigned* cells, unsigned* arrived, int steps) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int left = (i + n - 1) % n, right = (i + 1) % n;
  for (int s = 0; s < steps; ++s) {
    const unsigned* cur = cells + (s % 2) * n;
    unsigned* next = cells + ((s + 1) % 2) * n;
    next[i] = cur[left] + 2u * cur[i] + cur[right];
    grid_barrier(arrived, unsigned(s + 1));
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
  const int n = kBlocks * kThreads;
  std::vector<unsigned> ring(n);
  for (int i = 0; i < n; ++i) ring[i] = unsigned(i * i % 17 + 1);

  unsigned *cells = nullptr, *arrived = nullptr;
  CHECK(cudaMalloc(&cells, 2 * n * sizeof(unsigned)));
  CHECK(cudaMalloc(&arrived, sizeof(unsigned)));
  CHECK(cudaMemcpy(cells, ring.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(cells + n, 0, n * sizeof(unsigned)));
  CHECK(cudaMemset(arrived, 0, sizeof(unsigned)));
  smooth_ring<<<kBlocks, kThreads>>>(cells, arrived, kSteps);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n);
  CHECK(cudaMemcpy(got.data(), cells + (kSteps % 2) * n, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(cells));
  CHECK(cudaFree(arrived));

  for (int s = 0; s < kSteps; ++s) {
    std::vector<unsigned> next(n);
    for (int i = 0; i < n; ++i) next[i] = ring[(i + n - 1) % n] + 2u * ring[i] + ring[(i + 1) % n];
    ring = next;
  }
  for (int i = 0; i < n; ++i) {
    if (got[i] != ring[i]) {
      std::printf("wrong cell %d after %d steps: %u, expected %u\n", i, kSteps, got[i], ring[i]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
