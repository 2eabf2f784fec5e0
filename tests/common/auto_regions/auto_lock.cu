// An ordinary spin lock, written with no SyncLab annotation: thread 0 of every block takes a
// __device__ lock word with atomicCAS, adds one to a counter, and releases the lock with
// atomicExch, `rounds` times. A second kernel does the same with a __shared__ lock among the
// warps of one block. Built again with -DREGISTERED, the program names the __device__ lock word
// itself (synclab_region, "the lock"), which must be the only region over it.
// Usage: auto_lock BLOCKS ROUNDS. Prints the counters and PASS when they are right.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#ifdef REGISTERED
#include <synclab/regions.h>
#endif

__device__ int lock;
__device__ int counter;

__global__ void count_under_lock(int rounds) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < rounds; ++i) {
    while (atomicCAS(&lock, 0, 1) != 0) {  // AUTO-ACQUIRE
    }
    __threadfence();
    volatile int* c = &counter;
    *c = *c + 1;
    __threadfence();
    atomicExch(&lock, 0);  // AUTO-RELEASE
  }
}

// One lane of each warp takes the block's lock (one lane per warp: no lane waits for a warp-mate).
__global__ void count_under_shared_lock(int rounds, int* out) {
  __shared__ int slock;
  __shared__ int scount;
  if (threadIdx.x == 0) {
    slock = 0;
    scount = 0;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    for (int i = 0; i < rounds; ++i) {
      while (atomicCAS(&slock, 0, 1) != 0) {
      }
      __threadfence_block();
      volatile int* c = &scount;
      *c = *c + 1;
      __threadfence_block();
      atomicExch(&slock, 0);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = scount;
}

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 4;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
#ifdef REGISTERED
  void* lock_address = nullptr;
  if (cudaGetSymbolAddress(&lock_address, lock) != cudaSuccess) return 1;
  if (synclab_region(lock_address, sizeof(int), "the lock", "lock-bits", 32) != 0) return 1;
#endif
  count_under_lock<<<blocks, 32>>>(rounds);
  cudaError_t err = cudaDeviceSynchronize();
  int total = 0;
  cudaMemcpyFromSymbol(&total, counter, sizeof(int));
  const int warps = 4;
  int* out = nullptr;
  if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) return 1;
  count_under_shared_lock<<<1, 32 * warps>>>(rounds, out);
  cudaError_t err2 = cudaDeviceSynchronize();
  int block_total = 0;
  cudaMemcpy(&block_total, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("counter = %d (expected %d, %s), block counter = %d (expected %d, %s)\n", total, blocks * rounds,
              cudaGetErrorString(err), block_total, warps * rounds, cudaGetErrorString(err2));
  const bool ok = err == cudaSuccess && err2 == cudaSuccess && total == blocks * rounds && block_total == warps * rounds;
  std::printf("%s auto_lock\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
