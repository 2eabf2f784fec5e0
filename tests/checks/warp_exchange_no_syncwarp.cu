// warp_exchange_no_syncwarp (race under its only): warp-synchronous code that passes values
// between the lanes of one warp through (non-volatile) shared memory with no __syncwarp().
// Under independent thread scheduling the lanes are not ordered: a warp-level race, reported as
// a WARNING. Under the lockstep model the warp runs each instruction for all its lanes at once,
// so the code is ordered and nothing is reported. Each block is two warps that never touch each
// other's data. The report advises __syncwarp(), or __syncthreads() where the whole block takes part.
//   -DFIX        the advice applied: __syncwarp() between the write and the read; nothing is reported.
//   -DFIX_BLOCK  the other remedy: __syncthreads() there; nothing is reported either.
#include "checks.h"

constexpr int kThreads = 64;

__global__ void exchange(int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x, lane = t % 32, base = t - lane;
  s[t] = t * 7;  // EXPECT(race)
#ifdef FIX
  __syncwarp();
#elif defined(FIX_BLOCK)
  __syncthreads();  // the report's other remedy: a block barrier orders a warp's lanes too
#endif
  out[blockIdx.x * kThreads + t] = s[base + (lane ^ 1)];  // EXPECT(race)
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 2 * kThreads * sizeof(int)));
  exchange<<<2, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("warp_exchange_no_syncwarp", true);
}
