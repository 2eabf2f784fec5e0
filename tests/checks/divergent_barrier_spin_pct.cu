// divergent_barrier_spin_pct (regression: a hang found late). Lab 07's lock-free barrier with
// block 0's middle __syncthreads() inside `if (threadIdx.x < gridDim.x)`: barrier divergence, and
// under lockstep the blocks then spin for ever on arrive/depart words nobody writes again. Under
// lockstep with pct the hang was proven only when the step budget ran out (tens of seconds): the
// lanes left runnable were already spinning, so no lane became a new spinner to start the hang
// check (KernelRun::check_progress in sim/exec/progress.cpp now also checks when nothing changed
// for long). Expected: the sync report and the hang, at once, for every seed. -DFIX puts the
// __syncthreads() where every thread of the block reaches it, as the lab's solution does: clean.
#include "checks.h"

__device__ void lockfree_barrier(unsigned* arrive, unsigned* depart, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    ((volatile unsigned*)arrive)[blockIdx.x] = round;
  }
#ifndef FIX
  if (blockIdx.x == 0 && threadIdx.x < gridDim.x) {
    while (((volatile unsigned*)arrive)[threadIdx.x] != round) {  // EXPECT(hang)
    }
    __threadfence();
    __syncthreads();  // EXPECT(sync)
    __threadfence();
    ((volatile unsigned*)depart)[threadIdx.x] = round;
  }
#else
  if (blockIdx.x == 0 && threadIdx.x < gridDim.x) {
    while (((volatile unsigned*)arrive)[threadIdx.x] != round) {
    }
    __threadfence();
  }
  __syncthreads();  // every thread of every block reaches it
  if (blockIdx.x == 0 && threadIdx.x < gridDim.x) {
    __threadfence();
    ((volatile unsigned*)depart)[threadIdx.x] = round;
  }
#endif
  if (threadIdx.x == 0) {
    while (((volatile unsigned*)depart)[blockIdx.x] != round) {  // EXPECT(hang)
    }
    __threadfence();
  }
  __syncthreads();
}

__global__ void rounds(unsigned* arrive, unsigned* depart, int n) {
  for (int r = 1; r <= n; ++r) lockfree_barrier(arrive, depart, r);
}

int main() {
  unsigned *arrive, *depart;
  CHECK(cudaMalloc(&arrive, 3 * sizeof(unsigned)));
  CHECK(cudaMalloc(&depart, 3 * sizeof(unsigned)));
  CHECK(cudaMemset(arrive, 0, 3 * sizeof(unsigned)));
  CHECK(cudaMemset(depart, 0, 3 * sizeof(unsigned)));
  rounds<<<3, 32>>>(arrive, depart, 3);
  const bool ok = cudaDeviceSynchronize() == cudaSuccess;
  return verdict("divergent_barrier_spin_pct", ok);
}
