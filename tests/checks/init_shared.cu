// init_shared (init): only the first warp of each block writes its part of a shared array, but
// every thread reads its own element after the barrier: the second warp reads shared memory no
// thread of the block wrote (init, at the read).
#include "checks.h"

constexpr int kThreads = 64;

__global__ void half_written(int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  if (t < 32) s[t] = t;
  __syncthreads();
  out[blockIdx.x * kThreads + t] = s[t];  // EXPECT(init)
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 2 * kThreads * sizeof(int)));
  half_written<<<2, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("init_shared", true);
}
