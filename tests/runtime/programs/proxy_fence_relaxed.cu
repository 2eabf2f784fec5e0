// A proxy fence (fence.proxy.alias) between a store and a load of one word: the relaxed memory
// model covers the generic proxy only, so under SYNCLAB_MEMORY=relaxed the run must say that proxy
// fences are not covered (naming the line) and still give the right value; under sc there is
// nothing to say.
#include <cstdio>

#include "check.h"

__global__ void store_fence_load(int* word, int* out) {
  *reinterpret_cast<volatile int*>(word) = 42;
  asm volatile("fence.proxy.alias;" ::: "memory");
  *out = *reinterpret_cast<volatile int*>(word);
}

int main() {
  int* word;
  int* out;
  CHECK_OK(cudaMalloc(&word, sizeof(int)));
  CHECK_OK(cudaMalloc(&out, sizeof(int)));
  store_fence_load<<<1, 1>>>(word, out);
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaDeviceSynchronize());
  int got = 0;
  CHECK_OK(cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_OK(cudaFree(word));
  CHECK_OK(cudaFree(out));
  if (got != 42) {
    std::printf("FAIL proxy_fence_relaxed: read %d, expected 42\n", got);
    return 1;
  }
  std::printf("PASS proxy_fence_relaxed\n");
  return 0;
}
