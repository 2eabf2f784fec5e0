// Lab 02's first two-thread lock, "v1" (seed 004, "Mutual exclusion: 2 threads"): thread i raises
// flag[i], waits while the other thread's flag is up, runs its critical section, lowers its flag.
// One thread in each of two blocks. Run one thread after the other (SYNCLAB_SCHED=pct
// SYNCLAB_PCT_DEPTH=1) and both finish; let both raise their flags before either checks the other's
// and both wait for ever: the deadlock the viewer's steering tests reach by choosing who runs next.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

__global__ void v1(volatile int* flag, int* inside) {
  const int me = blockIdx.x, other = 1 - me;
  flag[me] = 1;
  while (flag[other] != 0) {
  }
  *inside += 1;  // the critical section
  flag[me] = 0;
}

int main() {
  int* flag = nullptr;
  int* inside = nullptr;
  if (cudaMalloc(&flag, 2 * sizeof(int)) != cudaSuccess || cudaMalloc(&inside, sizeof(int)) != cudaSuccess) return 1;
  if (synclab_region(flag, 2 * sizeof(int), "flag", "flags", 2) != 0) return 1;
  if (synclab_region(inside, sizeof(int), "inside", "array", 1) != 0) return 1;
  cudaMemset(flag, 0, 2 * sizeof(int));
  cudaMemset(inside, 0, sizeof(int));
  v1<<<2, 1>>>(flag, inside);
  const cudaError_t err = cudaDeviceSynchronize();
  int h = 0;
  cudaMemcpy(&h, inside, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("%s; %d critical sections ran\n", err == cudaSuccess ? "both threads finished" : cudaGetErrorString(err), h);
  return err == cudaSuccess ? 0 : 1;
}
