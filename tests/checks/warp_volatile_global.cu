// warp_volatile_global (WARNING under its): the unrolled last-warp reduction done in global
// memory: the 32 lanes of warp 0 fold a volatile global array of 64 ints in place with no
// __syncwarp(). Under independent thread scheduling a lane may read its neighbour's element before
// or after the neighbour's update of the same step: a warp-level race, in global memory as in
// shared memory (tests/checks/warp_volatile_after_fence is the shared-memory case).
//   -DFIX  __syncwarp() between each step's reads and writes (the advice): nothing is reported.
#include "checks.h"

__global__ void last_warp(int* a, int* out) {
  const int t = threadIdx.x;
  volatile int* v = a;
#ifdef FIX
  for (int d = 32; d >= 1; d /= 2) {
    const int x = v[t] + v[t + d];
    __syncwarp();
    v[t] = x;
    __syncwarp();
  }
#else
  v[t] += v[t + 32];  // EXPECT(race)
  v[t] += v[t + 16];  // EXPECT(race)
  v[t] += v[t + 8];   // EXPECT(race)
  v[t] += v[t + 4];   // EXPECT(race)
  v[t] += v[t + 2];   // EXPECT(race)
  v[t] += v[t + 1];   // EXPECT(race)
#endif
  if (t == 0) *out = v[0];
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *a, *out;
  CHECK(cudaMalloc(&a, sizeof h));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice));
  last_warp<<<1, 32>>>(a, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("warp_volatile_global", got == 63 * 64 / 2);
}
