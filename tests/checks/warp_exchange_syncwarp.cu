// warp_exchange_syncwarp (clean): the twin of warp_exchange_no_syncwarp with __syncwarp()
// between the writes and the reads: ordered under both warp models.
#include "checks.h"

constexpr int kThreads = 64;

__global__ void exchange(int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x, lane = t % 32, base = t - lane;
  s[t] = t * 7;
  __syncwarp();
  out[blockIdx.x * kThreads + t] = s[base + (lane ^ 1)];
}

int main() {
  int* out;
  static int h[2 * kThreads];
  CHECK(cudaMalloc(&out, sizeof h));
  exchange<<<2, kThreads>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 2 * kThreads; ++i) ok = ok && h[i] == ((i % kThreads) ^ 1) * 7;
  return verdict("warp_exchange_syncwarp", ok);
}
