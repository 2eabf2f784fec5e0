// mapped_host_ok (clean): every block writes its own word of mapped pinned host memory, then a
// second launch reads all of them from other blocks, and the host reads them after
// synchronizing. No race.
#include "checks.h"

constexpr int kBlocks = 4;

__global__ void write_own(int* words) {
  if (threadIdx.x == 0) words[blockIdx.x] = 10 + blockIdx.x;
}
__global__ void read_other(const int* words, int* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = words[(blockIdx.x + 1) % kBlocks];
}

int main() {
  int* host = nullptr;
  int* dev = nullptr;
  int *out, h[kBlocks];
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&host, kBlocks * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&dev, host, 0));
  CHECK(cudaMalloc(&out, sizeof h));
  write_own<<<kBlocks, 32>>>(dev);
  read_other<<<kBlocks, 32>>>(dev, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < kBlocks; ++b) ok = ok && host[b] == 10 + b && h[b] == 10 + (b + 1) % kBlocks;
  CHECK(cudaFreeHost(host));
  return verdict("mapped_host_ok", ok);
}
