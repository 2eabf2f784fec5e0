// PENDING (missed warp-level race). warp_volatile_after_fence: the unrolled last-warp reduction
// through volatile shared memory with no __syncwarp() (a warp-level race under independent
// thread scheduling, like tests/fixtures/warp_reduce_no_syncwarp.cu), in a kernel that executed
// an unrelated __threadfence_block() earlier (after loading its input).
//
// Expected (--model its): SyncLab WARNING (race) at a marked line, as without the fence.
// Got: no report.
//
// Why: RaceDetector::check() exempts two strong (volatile) accesses of lanes of one warp on
// shared memory when the current thread has EVER executed a fence in the launch (RaceThread::
// fenced, never reset). A fence before the racy code orders nothing between the lanes; the
// exemption was meant for flag/lock protocols whose fences surround the flag accesses.
//
// Run: synclab-run --model its -- ./warp_volatile_after_fence
#include "../checks.h"

__global__ void last_warp(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t] + in[t + 64];
  __threadfence_block();
  __syncthreads();
  if (t < 32) {
    volatile int* v = s;
    v[t] += v[t + 32];  // EXPECT(race)
    v[t] += v[t + 16];  // EXPECT(race)
    v[t] += v[t + 8];   // EXPECT(race)
    v[t] += v[t + 4];   // EXPECT(race)
    v[t] += v[t + 2];   // EXPECT(race)
    v[t] += v[t + 1];   // EXPECT(race)
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
  return verdict("warp_volatile_after_fence", true);
}
