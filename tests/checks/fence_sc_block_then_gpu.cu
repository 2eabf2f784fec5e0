// fence_sc_block_then_gpu (race; clean with -DFIX): a block-scope fence is no fence for another
// block. Block 0 writes its partial, fences (__threadfence) and raises a flag; block 1 waits for the
// flag, runs __threadfence_block() (fence.sc.cta: it orders nothing with block 0) and reads the
// partial. With __threadfence() after the block fence (-DFIX) Fence-SC order puts block 0's fence
// before it, and the partial before its read: the checker must look again at that second fence,
// although what block 1 heard of did not change since its first.
//   (default)  block 1 has only the block fence: a race between the partial's write and its read.
//   -DFIX      __threadfence() after it: nothing is reported.
#include "checks.h"

__global__ void block_then_gpu(int* partial, volatile int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *partial = 42;  // EXPECT(race)
    __threadfence();
    *flag = 1;
  } else {
    while (*flag != 1) {
    }
    __threadfence_block();
#ifdef FIX
    __threadfence();
#endif
    *out = *partial;  // EXPECT(race)
  }
}

int main() {
  int *partial, *flag, *out;
  CHECK(cudaMalloc(&partial, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(partial, 0, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  block_then_gpu<<<2, 32>>>(partial, flag, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("fence_sc_block_then_gpu", got == 42);
}
