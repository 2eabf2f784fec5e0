// cudaHostRegister: page-locked ordinary host memory is addressable by kernels through its
// device pointer (cudaHostGetDevicePointer; the same pointer under unified addressing), and
// unregistering makes it ordinary host memory again.
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void add_index(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += i;
}

int main() {
  const int n = 1000;
  // Page-aligned, as the CUDA documentation recommends for cudaHostRegister.
  int* host = static_cast<int*>(std::aligned_alloc(4096, 4096));
  for (int i = 0; i < n; ++i) host[i] = 3 * i;
  CHECK_OK(cudaHostRegister(host, 4096, cudaHostRegisterMapped));
  int* dev = nullptr;
  CHECK_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0));
  CHECK_TRUE(dev != nullptr);
  add_index<<<(n + 127) / 128, 128>>>(dev, n);
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaDeviceSynchronize());
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != 4 * i;
  CHECK_EQ_INT(wrong, 0);
  CHECK_ERR(cudaHostRegister(host, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
  cudaGetLastError();
  CHECK_OK(cudaHostUnregister(host));
  CHECK_ERR(cudaHostUnregister(host), cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
  std::free(host);
  return finish("host_register");
}
