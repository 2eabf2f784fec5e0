// warp_intrinsics_order (race under its only): lanes of one warp pass values through shared
// memory with only .sync warp intrinsics between the writes and the reads. PTX gives
// __ballot_sync, __all_sync and __match_any_sync no memory order (only bar.warp.sync,
// __syncwarp(), "guarantees memory ordering among threads participating"), so the reads after
// them race with the warp-mates' writes: warp-level races, reported as WARNING under its, nothing
// under lockstep (one program counter per warp). The simulator lets __shfl_sync order its lanes
// as __syncwarp() does, beyond PTX (docs/memory-model.md: cooperative groups relies on it), so the
// read after the shuffle is not reported. Each read's address depends on the intrinsic's result,
// so the compiler cannot move the read above it. Two warps per block, two blocks.
//   -DFIX  the advice applied: __syncwarp() after each vote and match; nothing is reported.
#include "checks.h"

constexpr int kThreads = 64;
constexpr int kBlocks = 2;
constexpr unsigned kFull = 0xffffffffu;

#ifdef FIX
#define ORDER_LANES() __syncwarp()
#else
#define ORDER_LANES() ((void)0)
#endif

__global__ void intrinsics(const int* in, int* out) {
  __shared__ int s1[kThreads], s2[kThreads], s3[kThreads], s4[kThreads];
  const int t = threadIdx.x, lane = t % 32, base = t - lane;
  const int v = in[blockIdx.x * kThreads + t];  // positive
  s1[t] = v;  // EXPECT(race)
  const unsigned b = __ballot_sync(kFull, v > 0);              // all lanes: b == kFull
  ORDER_LANES();
  // s1[base + 31 - lane]:
  const int r1 = s1[base + ((31 - lane + __popc(b)) & 31)];  // EXPECT(race)
  s2[t] = r1 + 1;
  const int x = __shfl_sync(kFull, r1, (lane + 1) & 31);
  const int r2 = s2[base + ((lane + 7 + (x == (int)0x80000000)) & 31)];  // x is never INT_MIN
  s3[t] = r2 * 2;  // EXPECT(race)
  const int all = __all_sync(kFull, r2 != 0x7fffffff);          // 1
  ORDER_LANES();
  // s3[base + lane - 1]:
  const int r3 = s3[base + ((lane + 31 * all) & 31)];  // EXPECT(race)
  s4[t] = r3 + x;  // EXPECT(race)
  const unsigned m = __match_any_sync(kFull, lane / 8);        // the 8 lanes of my group
  ORDER_LANES();
  // the first lane of the next group:
  const int r4 = s4[base + ((__ffs(m) - 1 + 8) & 31)];  // EXPECT(race)
  out[blockIdx.x * kThreads + t] = r4;
}

int main() {
  const int n = kThreads * kBlocks;
  static int h_in[n], h_out[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 13) % 41 + 1;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  intrinsics<<<kBlocks, kThreads>>>(in, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int w = 0; w < n / 32; ++w) {
    const int* v = h_in + w * 32;
    int r1[32], x[32], r2[32], r3[32], s4[32];
    for (int l = 0; l < 32; ++l) r1[l] = v[31 - l];
    for (int l = 0; l < 32; ++l) x[l] = r1[(l + 1) & 31];
    for (int l = 0; l < 32; ++l) r2[l] = r1[(l + 7) & 31] + 1;
    for (int l = 0; l < 32; ++l) r3[l] = r2[(l + 31) & 31] * 2;
    for (int l = 0; l < 32; ++l) s4[l] = r3[l] + x[l];
    for (int l = 0; l < 32; ++l) ok = ok && h_out[w * 32 + l] == s4[((l / 8) * 8 + 8) & 31];
  }
  return verdict("warp_intrinsics_order", ok);
}
