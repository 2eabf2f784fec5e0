// fence_sc_heard_again (race; clean with -DFIX): a thread that fenced once hears of a writer again,
// later in the writer's program. Block 0 hands over two partials, each written, fenced
// (__threadfence) and announced with a flag value. In block 1, thread 0 waits for each value and
// the block meets at __syncthreads(); thread 32 (another warp) fences and reads the first partial,
// then, after the second value, reads the second. Fence-SC order orders block 0's second fence
// before thread 32's second fence only: the checker must search again at that fence although
// block 1 had heard of block 0 before its first.
//   (default)  thread 32 does not fence before the second read: a race on the second partial.
//   -DFIX      it fences again: nothing is reported.
#include "checks.h"

__global__ void heard_again(int* partials, volatile int* flag, int* out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      partials[0] = 1;
      __threadfence();
      *flag = 1;
      partials[1] = 2;  // EXPECT(race)
      __threadfence();
      *flag = 2;
    }
    return;
  }
  if (threadIdx.x == 0) {
    while (*flag < 1) {
    }
  }
  __syncthreads();
  int sum = 0;
  if (threadIdx.x == 32) {
    __threadfence();
    sum = partials[0];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    while (*flag < 2) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 32) {
#ifdef FIX
    __threadfence();
#endif
    *out = sum + partials[1];  // EXPECT(race)
  }
}

int main() {
  int *partials, *flag, *out;
  CHECK(cudaMalloc(&partials, 2 * sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(partials, 0, 2 * sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  heard_again<<<2, 64>>>(partials, flag, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("fence_sc_heard_again", got == 3);
}
