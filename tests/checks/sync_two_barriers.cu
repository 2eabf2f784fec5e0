// sync_two_barriers (sync): warp 0 waits at one __syncthreads() and warp 1 at another. Every
// thread of a block must reach the SAME __syncthreads(); the report names both places.
#include "checks.h"

__global__ void two_barriers(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t < 32) {
    s[t] = t;
    __syncthreads();  // EXPECT(sync)
  } else {
    s[t] = -t;
    __syncthreads();  // EXPECT(sync)
  }
  out[t] = s[63 - t];
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  two_barriers<<<1, 64>>>(out);
  CHECK_KERNEL();
  return verdict("sync_two_barriers", true);
}
