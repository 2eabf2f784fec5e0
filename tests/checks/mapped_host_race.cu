// mapped_host_race (race): mapped pinned host memory (cudaHostAlloc with cudaHostAllocMapped) is
// memory like any other for the race detector: block 0 writes a word and block 1 reads it, with
// nothing between them (ERROR, both models).
#include "checks.h"

__global__ void racy(int* shared_with_host, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    shared_with_host[0] = 17;  // EXPECT(race)
  } else {
    const unsigned d = busy(100, blockIdx.x);
    out[0] = shared_with_host[0] + (d == 5u);  // EXPECT(race)
  }
}

int main() {
  int* host = nullptr;
  int* dev = nullptr;
  int* out;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host[0] = host[1] = 0;
  CHECK(cudaHostGetDevicePointer(&dev, host, 0));
  CHECK(cudaMalloc(&out, sizeof(int)));
  racy<<<2, 32>>>(dev, out);
  CHECK_KERNEL();
  CHECK(cudaFreeHost(host));
  return verdict("mapped_host_race", true);
}
