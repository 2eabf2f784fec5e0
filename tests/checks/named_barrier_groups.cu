// named_barrier_groups (clean): two independent groups of a block synchronize on their own named
// barriers with a thread count: warps 0-1 on `bar.sync 1, 64`, warps 2-3 on `bar.sync 2, 64`.
// Each group exchanges values through shared memory in several rounds; nothing of one group is
// read by the other until a block-wide `bar.sync 3` (no count) at the end. No race.
#include "checks.h"

constexpr int kThreads = 128;
constexpr int kBlocks = 2;
constexpr int kRounds = 3;

__global__ void groups(const int* in, int* out) {
  __shared__ int a[64], b[64], all[kThreads];
  const int t = threadIdx.x;
  int v = in[blockIdx.x * kThreads + t];
  if (t < 64) {
    for (int r = 0; r < kRounds; ++r) {
      a[t] = v + r;
      bar_sync(1, 64);  // the group's writes before its reads
      v = a[63 - t] - v;
      bar_sync(1, 64);  // the group's reads before the next round's writes
    }
  } else {
    const int u = t - 64;
    for (int r = 0; r < kRounds; ++r) {
      b[u] = v * 2 + r;
      bar_sync(2, 64);
      v = b[(u + 1) % 64] + v;
      bar_sync(2, 64);
    }
  }
  all[t] = v;
  asm volatile("bar.sync 3;" ::: "memory");  // every thread of the block
  out[blockIdx.x * kThreads + t] = all[(t + 64) % kThreads];
}

int main() {
  const int n = kThreads * kBlocks;
  static int h_in[n], h_out[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 7) % 23 - 11;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  groups<<<kBlocks, kThreads>>>(in, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int blk = 0; blk < kBlocks; ++blk) {
    int v[kThreads], a[64], b[64];
    for (int t = 0; t < kThreads; ++t) v[t] = h_in[blk * kThreads + t];
    for (int r = 0; r < kRounds; ++r) {
      for (int t = 0; t < 64; ++t) a[t] = v[t] + r;
      for (int t = 0; t < 64; ++t) v[t] = a[63 - t] - v[t];
      for (int u = 0; u < 64; ++u) b[u] = v[64 + u] * 2 + r;
      for (int u = 0; u < 64; ++u) v[64 + u] = b[(u + 1) % 64] + v[64 + u];
    }
    for (int t = 0; t < kThreads; ++t) ok = ok && h_out[blk * kThreads + t] == v[(t + 64) % kThreads];
  }
  return verdict("named_barrier_groups", ok);
}
