// grid_sync_coop (clean): grid-wide barriers in kernels launched with cudaLaunchCooperativeKernel
// (every block resident):
//   cg_phases: phases separated by cooperative_groups::this_grid().sync(), each reading what
//     other blocks wrote in the previous one;
//   counter_barrier: a hand-written sense-reversing grid barrier (atomicAdd on an arrival counter,
//     __threadfence(), a volatile generation word), used three times.
// No race, no sync report.
#include <cooperative_groups.h>

#include "checks.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 64;
constexpr int kBlocks = 4;
constexpr int n = kThreads * kBlocks;

__global__ void cg_phases(int* a, int* b) {
  cg::grid_group grid = cg::this_grid();
  const int i = static_cast<int>(grid.thread_rank());
  a[i] = i;
  grid.sync();
  b[i] = a[(i + kThreads) % n] + a[(i * 7) % n];
  grid.sync();
  a[i] = b[n - 1 - i];
}

__device__ void grid_barrier(unsigned* count, volatile unsigned* generation) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned gen = *generation;
    __threadfence();                              // release the block's writes with the arrival
    if (atomicAdd(count, 1) == gridDim.x - 1) {  // the last block to arrive
      __threadfence();                            // acquire the other blocks' arrivals
      atomicExch(count, 0);
      __threadfence();
      *generation = gen + 1;                      // release everybody
    } else {
      while (*generation == gen) {
      }
    }
    __threadfence();                              // acquire
  }
  __syncthreads();
}

__global__ void counter_barrier(int* a, int* b, unsigned* count, unsigned* generation) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  a[i] = 2 * i;
  grid_barrier(count, generation);
  b[i] = a[(i + kThreads) % n];
  grid_barrier(count, generation);
  a[i] = b[(i + kThreads) % n] + 1;
  grid_barrier(count, generation);
  b[i] = a[n - 1 - i];
}

int main() {
  int *a, *b;
  unsigned* sync_words;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMalloc(&sync_words, 2 * sizeof(unsigned)));
  CHECK(cudaMemset(sync_words, 0, 2 * sizeof(unsigned)));
  void* args1[] = {&a, &b};
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cg_phases), dim3(kBlocks), dim3(kThreads), args1, 0, 0));
  CHECK_KERNEL();
  static int ha[n], hb[n];
  CHECK(cudaMemcpy(ha, a, sizeof ha, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    const int j = n - 1 - i;
    ok = ok && ha[i] == (j + kThreads) % n + (j * 7) % n;
  }
  unsigned* count = sync_words;
  unsigned* generation = sync_words + 1;
  void* args2[] = {&a, &b, &count, &generation};
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(counter_barrier), dim3(kBlocks), dim3(kThreads), args2, 0, 0));
  CHECK_KERNEL();
  CHECK(cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int j = n - 1 - i;
    ok = ok && hb[i] == 2 * ((j + 2 * kThreads) % n) + 1;
  }
  return verdict("grid_sync_coop", ok);
}
