// warp_tail_volatile: the warp-synchronous tail of a reduction as it was written before Volta:
// warp 0 adds 64 values of volatile shared memory in place, vs[t] += vs[t + off] for off = 32,
// 16, ..., 1, with no __syncwarp(). Under independent thread scheduling lane t reads vs[t + off]
// while lane t + off writes it: a warp-level race (a WARNING) at the marked lines. The report's
// advice is the warp's: __syncwarp() between a step's reads and its writes (what -DFIX does, and
// then nothing is reported), not the advice for a hand-over through a flag (fences, and
// "__syncwarp() would not help"), which would not remove the race. Under lockstep the warp's one
// program counter orders the steps: clean.
#include "checks.h"

__global__ void tail(const int* in, int* out) {
  __shared__ int s[64];
  volatile int* vs = s;
  const int t = threadIdx.x;
  vs[t] = in[t];
  vs[t + 32] = in[t + 32];
  __syncwarp();
#ifdef FIX
  int v = vs[t];
  for (int off = 32; off > 0; off /= 2) {
    v += vs[t + off];
    __syncwarp();
    vs[t] = v;
    __syncwarp();
  }
#else
  vs[t] += vs[t + 32];
  vs[t] += vs[t + 16];  // EXPECT(race)
  vs[t] += vs[t + 8];   // EXPECT(race)
  vs[t] += vs[t + 4];   // EXPECT(race)
  vs[t] += vs[t + 2];   // EXPECT(race)
  vs[t] += vs[t + 1];   // EXPECT(race)
#endif
  if (t == 0) *out = vs[0];
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  tail<<<1, 32>>>(in, out);
  CHECK_KERNEL();
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  if (sum != 64 * 63 / 2) printf("sum %d, expected %d\n", sum, 64 * 63 / 2);
  return verdict("warp_tail_volatile", true);
}
