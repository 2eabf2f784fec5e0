// A flag nobody sets, written with no SyncLab annotation: thread 0 of every block but block 0
// waits for a __device__ flag that block 0 was meant to set and never does, so the kernel hangs
// (the simulator reports it and ends the launch). Many blocks poll the one word at once.
#include <cstdio>

#include <cuda_runtime.h>

__device__ volatile int ready;
__device__ int done[64];

__global__ void wait_for_ready() {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) done[0] = 1;  // forgets: ready = 1
    return;
  }
  if (threadIdx.x != 0) return;
  while (ready == 0) {  // AUTO-HANG
  }
  done[blockIdx.x] = 1;
}

int main() {
  wait_for_ready<<<16, 64>>>();
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
