// A kernel that stores out of bounds leaves the device with a sticky error: the synchronize
// after it and every later call return cudaErrorIllegalAddress until cudaDeviceReset. On the
// simulator the report names the kernel and the CUDA line (the test checks stderr for both).
#include "check.h"

#include "synclab/sim_control.h"

__global__ void fill_ones(int* p) { p[threadIdx.x] = 1; }

__global__ void out_of_bounds_store(int* p, long long offset) {
  if (threadIdx.x == 3) p[offset + threadIdx.x] = 42;  // OOB-STORE-LINE
}

int main() {
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, 16 * sizeof(int)));
  fill_ones<<<1, 16>>>(d);
  CHECK_OK(cudaDeviceSynchronize());

  // 1 GiB past a 64-byte allocation: unmapped on a GPU, outside every allocation here.
  out_of_bounds_store<<<1, 32>>>(d, (1ll << 30) / 4);
  CHECK_OK(cudaGetLastError());  // the launch itself was fine
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);

  // Sticky: every call that uses the device fails with the same error now. Each such failure
  // is the thread's last error, which reading clears (as on CUDA 13); the device stays broken.
  int h = 0;
  CHECK_ERR(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaGetLastError(), cudaSuccess);
  CHECK_ERR(cudaPeekAtLastError(), cudaSuccess);
  int* more = nullptr;
  CHECK_ERR(cudaMalloc(&more, 16), cudaErrorIllegalAddress);
  fill_ones<<<1, 16>>>(d);
  CHECK_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_ERR(cudaStreamQuery(0), cudaErrorIllegalAddress);
  cudaEvent_t event;
  CHECK_ERR(cudaEventCreate(&event), cudaErrorIllegalAddress);
  int count = 0;
  CHECK_OK(cudaGetDeviceCount(&count));  // queries that do not use the device still work
  cudaDeviceProp prop;
  CHECK_OK(cudaGetDeviceProperties(&prop, 0));

  // A reset gives a working device back. (The H200 this was checked on said
  // cudaErrorDevicesUnavailable after the reset instead, so the GPU run stops here.)
  if (!synclab::sim::active()) return finish("sticky_fault");
  CHECK_OK(cudaDeviceReset());
  CHECK_OK(cudaMalloc(&d, 16 * sizeof(int)));
  fill_ones<<<1, 16>>>(d);
  CHECK_OK(cudaDeviceSynchronize());
  int back[16] = {};
  CHECK_OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i) CHECK_EQ_INT(back[i], 1);
  return finish("sticky_fault");
}
