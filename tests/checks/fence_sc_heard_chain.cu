// fence_sc_heard_chain (race; clean with -DFIX): what a fence.sc learns from the writes that its
// block read. Block 0 writes its partial, fences (__threadfence) and raises a flag with
// atomicAdd; block 1 waits for that flag and overwrites it with a plain volatile store of 5. In
// block 2, thread 0 polls the flag until it reads 1 and then until it reads 5, the block meets at
// __syncthreads(), and thread 32 (another warp) reads block 0's partial. Under the PTX memory
// model, block 2 having read block 0's flag puts block 0's fence before any fence.sc that block 2
// runs after the barrier (Fence-SC order), so with thread 32's fence the partial is ordered before
// its read. Thread 32 never read the flag: only Fence-SC order orders the two. The checker must
// keep block 0 among what block 2 heard of although thread 0 read the flag again since: block 1's
// store continues no read-modify-write of block 0, so its writer knows nothing of block 0.
//   (default)  thread 32 does not fence: a race between the partial's write and its read.
//   -DFIX      thread 32 fences after the barrier: nothing is reported.
#include "checks.h"

__global__ void heard_chain(int* partial, volatile unsigned* flag, int* out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      *partial = 42;  // EXPECT(race)
      __threadfence();
      atomicAdd(const_cast<unsigned*>(flag), 1u);
    }
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (*flag != 1) {
      }
      *flag = 5;
    }
  } else {
    if (threadIdx.x == 0) {
      while (*flag != 1) {
      }
      while (*flag != 5) {
      }
    }
    __syncthreads();
    if (threadIdx.x == 32) {
#ifdef FIX
      __threadfence();
#endif
      *out = *partial;  // EXPECT(race)
    }
  }
}

int main() {
  int *partial, *out;
  unsigned* flag;
  CHECK(cudaMalloc(&partial, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(unsigned)));
  CHECK(cudaMemset(partial, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(unsigned)));
  heard_chain<<<3, 64>>>(partial, flag, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("fence_sc_heard_chain", got == 42);
}
