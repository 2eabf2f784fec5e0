// The naive intra-warp spin lock (every lane of one warp takes one global lock with atomicCAS),
// with the lock word named as a lock-bits region so the visualizer can draw who holds it.
// lockstep: never finishes (the winner waits for its warp-mates at the loop's exit while they
// spin on the lock it holds); the simulator reports it. its: completes, counter == 32.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

__global__ void count_under_lock(int* lock, int* counter) {
  while (atomicCAS(lock, 0, 1) != 0) {  // VIZ-SPIN
  }
  __threadfence();
  *counter = *counter + 1;  // VIZ-CRITICAL
  __threadfence();
  atomicExch(lock, 0);  // VIZ-UNLOCK
}

int main() {
  int *lock = nullptr, *counter = nullptr;
  if (cudaMalloc(&lock, sizeof(int)) != cudaSuccess || cudaMalloc(&counter, sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(lock, 0, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  if (synclab_region(lock, 4, "lock", "lock-bits", 32) != 0) return 1;
  count_under_lock<<<1, 32>>>(lock, counter);
  cudaError_t err = cudaDeviceSynchronize();
  int result = 0;
  cudaMemcpy(&result, counter, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("counter = %d (%s)\n", result, cudaGetErrorString(err));
  const bool ok = err == cudaSuccess && result == 32;
  std::printf("%s viz_lock\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
