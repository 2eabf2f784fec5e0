// Built by plain nvcc for SASS only (no PTX) and linked with simcudart: the launch fails with
// cudaErrorNoKernelImageForDevice and the message tells the user to rebuild with synclab-nvcc.
#include "check.h"

__global__ void k(int* p) { p[0] = 1; }

int main() {
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, sizeof(int)));
  k<<<1, 1>>>(d);
  CHECK_ERR(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
  return finish("sass_only");
}
