// Region contents that the host put there: data copied in before the region is named, a memset
// after it is named, lock bits set by a host copy, and a host copy between two launches. The
// kernel writes one element and releases one lock word. The expected values are written out in
// tests/viz/core/contents.test.cpp from this program's constants.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

__global__ void touch(int* data, unsigned* locks) {
  if (threadIdx.x == 0) {
    data[1] = 11;            // a device write: has a writer in the viewer
    atomicExch(&locks[0], 0u);  // releases bits 0 and 2, which the host set
  }
}

int main() {
  int* data = nullptr;
  int* flags = nullptr;
  unsigned* locks = nullptr;
  if (cudaMalloc(&data, 8 * sizeof(int)) != cudaSuccess || cudaMalloc(&flags, 4 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&locks, 2 * sizeof(unsigned)) != cudaSuccess)
    return 1;
  const int host_data[8] = {5, 0, 7, 0, 0, 0, 0, 9};
  cudaMemcpy(data, host_data, sizeof host_data, cudaMemcpyHostToDevice);
  // Named after the copy: the copy happened before the simulator knew the region.
  if (synclab_region(data, 8 * sizeof(int), "data", "array", 8) != 0) return 1;
  // Named before the memset: every byte 0x01, so every flag is 0x01010101.
  if (synclab_region(flags, 4 * sizeof(int), "flags", "flags", 4) != 0) return 1;
  cudaMemset(flags, 0x01, 4 * sizeof(int));
  if (synclab_region(locks, 2 * sizeof(unsigned), "locks", "lock-bits", 2, 32) != 0) return 1;
  const unsigned host_locks[2] = {0x5u, 0x80000000u};  // bits 0, 2 and 63
  cudaMemcpy(locks, host_locks, sizeof host_locks, cudaMemcpyHostToDevice);

  touch<<<1, 32>>>(data, locks);
  cudaError_t err1 = cudaDeviceSynchronize();
  const int three = 33;
  cudaMemcpy(data + 3, &three, sizeof three, cudaMemcpyHostToDevice);  // between the launches
  touch<<<1, 32>>>(data, locks);
  cudaError_t err2 = cudaDeviceSynchronize();

  int out[8] = {};
  cudaMemcpy(out, data, sizeof out, cudaMemcpyDeviceToHost);
  const bool ok = err1 == cudaSuccess && err2 == cudaSuccess && out[1] == 11 && out[3] == 33 && out[7] == 9;
  std::printf("%s viz_contents\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
