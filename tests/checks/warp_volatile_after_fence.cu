// warp_volatile_after_fence (WARNING under its): the unrolled last-warp reduction through
// volatile shared memory with no __syncwarp() (a warp-level race under independent thread
// scheduling, like tests/fixtures/warp_reduce_no_syncwarp.cu), in a kernel that executed an
// unrelated __threadfence_block() earlier (after loading its input), before a __syncthreads().
//
// A regression: RaceDetector::check() exempted volatile accesses of lanes of one warp when the
// thread had ever executed a fence in the launch; a fence before the racy code orders nothing
// between the lanes. The exemption (meant for flag and lock protocols whose fences surround the
// flag accesses) now counts only fences since the thread's last barrier.
//   -DFIX  __syncwarp() between the steps (the advice): nothing is reported.
//
// Run: synclab-run --model its -- ./warp_volatile_after_fence
#include "checks.h"

__global__ void last_warp(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t] + in[t + 64];
  __threadfence_block();
  __syncthreads();
  if (t < 32) {
    volatile int* v = s;
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
  }
  if (t == 0) out[0] = s[0];
}

int main() {
  int h[128];
  for (int i = 0; i < 128; ++i) h[i] = i;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  last_warp<<<1, 64>>>(in, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("warp_volatile_after_fence", got == 127 * 128 / 2);
}
