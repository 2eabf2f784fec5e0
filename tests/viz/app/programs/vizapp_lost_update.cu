// ++x[0] by one thread in each of two blocks: under the default round-robin schedule both threads
// load 0 before either stores, so both store 1 and one increment is lost; the race checker
// reports it. The Reports window's interleaving of that report is what the viz tests read.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

__global__ void increment(int* x) { ++x[0]; }

int main() {
  int* x = nullptr;
  if (cudaMalloc(&x, sizeof(int)) != cudaSuccess) return 1;
  if (synclab_region(x, sizeof(int), "x", "array", 1) != 0) return 1;
  cudaMemset(x, 0, sizeof(int));
  increment<<<2, 1>>>(x);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h = 0;
  cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(x);
  std::printf("x[0] = %d after two increments\n", h);
  return 0;
}
