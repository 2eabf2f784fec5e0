// scope_fence_no_acquire (insufficient-scope race, both models): block 0 writes a value, fences
// with __threadfence_block() and raises a flag with atomicExch; block 1 spins on the flag with
// atomicAdd(&flag, 0) and reads the value with no fence after the spin. Two things are missing:
// the release has block scope, so it does not reach block 1, and block 1 never acquires. The
// report must name both (fixing only the scope leaves the race).
//   -DFIX           __threadfence() before raising the flag and after seeing it: nothing is
//                   reported.
//   -DSCOPE_ONLY    the writer's fence made device-scope, the reader still without one: still a
//                   race (the reader did not acquire).
#include "checks.h"

__device__ int flag = 0;

__global__ void publish(int* data, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *data = 42;  // EXPECT(race)
#if defined(FIX) || defined(SCOPE_ONLY)
    __threadfence();
#else
    __threadfence_block();
#endif
    atomicExch(&flag, 1);
  } else {
    while (atomicAdd(&flag, 0) == 0) {
    }
#ifdef FIX
    __threadfence();
#endif
    *out = *data;  // EXPECT(race)
  }
}

int main() {
  int *data, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  publish<<<2, 32>>>(data, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("scope_fence_no_acquire", got == 42);
}
