// A flag nobody sets, written with no SyncLab annotation: thread 0 of every block but block 0
// waits for a __device__ flag that block 0 was meant to set and never does, so the kernel hangs
// (the simulator reports it and ends the launch). Many blocks poll the one word at once.
// Built with -DTWO_LOADS, the loop reads the flag at two instructions in turn: no three loads in a
// row at one instruction, so the simulator's poll check never finds the word; only the hang
// report names it. The flag then starts at 5 and the loop waits for 7, so that the trace's snapshot
// of the word (written when the word is found) tells when it was found.
#include <cstdio>

#include <cuda_runtime.h>

#ifdef TWO_LOADS
__device__ volatile int ready = 5;
#else
__device__ volatile int ready;
#endif
__device__ int done[64];

__global__ void wait_for_ready() {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) done[0] = 1;  // forgets: ready = 1
    return;
  }
  if (threadIdx.x != 0) return;
#ifdef TWO_LOADS
  while (ready != 7 && ready != 7) {  // AUTO-HANG
  }
#else
  while (ready == 0) {  // AUTO-HANG
  }
#endif
  done[blockIdx.x] = 1;
}

int main() {
  wait_for_ready<<<16, 64>>>();
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
