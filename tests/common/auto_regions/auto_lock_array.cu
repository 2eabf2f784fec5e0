// An array of locks in cudaMalloc memory, written with no SyncLab annotation: thread 0 of each of
// 16 blocks takes lock (block % 8) with atomicCAS, adds one to that lock's counter, and releases
// it with atomicExch, `rounds` times. The locks have an allocation of their own, the counters
// another. Usage: auto_lock_array ROUNDS. Prints PASS when every counter is 2 * ROUNDS.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

constexpr int kLocks = 8, kBlocks = 16;

__global__ void count_under_locks(int* locks, int* counts, int rounds) {
  if (threadIdx.x != 0) return;
  const int k = blockIdx.x % kLocks;
  for (int i = 0; i < rounds; ++i) {
    while (atomicCAS(&locks[k], 0, 1) != 0) {  // AUTO-ARRAY-ACQUIRE
    }
    __threadfence();
    volatile int* c = &counts[k];
    *c = *c + 1;
    __threadfence();
    atomicExch(&locks[k], 0);  // AUTO-ARRAY-RELEASE
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  int *locks = nullptr, *counts = nullptr;
  if (cudaMalloc(&locks, kLocks * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMalloc(&counts, kLocks * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(locks, 0, kLocks * sizeof(int));
  cudaMemset(counts, 0, kLocks * sizeof(int));
  count_under_locks<<<kBlocks, 32>>>(locks, counts, rounds);
  cudaError_t err = cudaDeviceSynchronize();
  int host[kLocks] = {};
  cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost);
  bool ok = err == cudaSuccess;
  for (int k = 0; k < kLocks; ++k) ok = ok && host[k] == 2 * rounds;
  std::printf("counts[0] = %d (expected %d, %s)\n", host[0], 2 * rounds, cudaGetErrorString(err));
  std::printf("%s auto_lock_array\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
