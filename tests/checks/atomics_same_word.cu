// atomics_same_word (clean): every thread of two blocks updates the same words with atomics
// (add, max, or, exch, a compare-and-swap loop; global and shared memory). An atomic never races
// with an atomic. No race.
#include "checks.h"

constexpr int kThreads = 64;
constexpr int kBlocks = 2;

__global__ void atomics(int* counter, int* maxv, unsigned* bits, int* cas_word, int* last, int* block_sums) {
  __shared__ int sh;
  const int t = threadIdx.x, g = blockIdx.x * kThreads + t;
  if (t == 0) sh = 0;
  __syncthreads();
  atomicAdd(counter, 1);
  atomicMax(maxv, g);
  atomicOr(bits, 1u << (g % 32));
  atomicExch(last, g);
  int cur = atomicAdd(cas_word, 0);
  for (;;) {
    const int prev = atomicCAS(cas_word, cur, cur + 2);
    if (prev == cur) break;
    cur = prev;
  }
  atomicAdd(&sh, g);
  __syncthreads();
  if (t == 0) block_sums[blockIdx.x] = sh;
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 8 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 8 * sizeof(int)));
  atomics<<<kBlocks, kThreads>>>(d, d + 1, reinterpret_cast<unsigned*>(d + 2), d + 3, d + 4, d + 5);
  CHECK_KERNEL();
  int h[8];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const int n = kThreads * kBlocks;
  bool ok = h[0] == n && h[1] == n - 1 && static_cast<unsigned>(h[2]) == 0xffffffffu && h[3] == 2 * n &&
            h[4] >= 0 && h[4] < n;
  for (int b = 0; b < kBlocks; ++b) {
    int want = 0;
    for (int t = 0; t < kThreads; ++t) want += b * kThreads + t;
    ok = ok && h[5 + b] == want;
  }
  return verdict("atomics_same_word", ok);
}
