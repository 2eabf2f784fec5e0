// cp_async_read_before_wait (race, both models; sm_80+): every thread stages one element into
// shared memory with an asynchronous copy (__pipeline_memcpy_async, i.e. cp.async), commits it,
// passes __syncthreads() and reads the element another thread copied, but waits for its own copy
// (__pipeline_wait_prior, i.e. cp.async.wait_group) only afterwards. __syncthreads() does not wait
// for asynchronous copies: the copy may land after the other thread's read, which then sees the
// old value. The race is reported between the cp.async and the read, and the advice names the wait.
//   -DFIX  the advice applied: wait for the copy, then __syncthreads(), then read; nothing is reported.
#include <cuda_pipeline.h>

#include "checks.h"

constexpr int kThreads = 64;

__global__ void stage(const int* in, int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  s[t] = -1;  // defined before the copies: a read that comes too early sees -1
  __syncthreads();
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(int));  // EXPECT(race)
  __pipeline_commit();
#ifdef FIX
  __pipeline_wait_prior(0);
#endif
  __syncthreads();
  out[t] = s[kThreads - 1 - t];  // EXPECT(race)
#ifndef FIX
  __pipeline_wait_prior(0);
#endif
}

int main() {
  int *in, *out, h[kThreads];
  for (int i = 0; i < kThreads; ++i) h[i] = 1000 + i;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  stage<<<1, kThreads>>>(in, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
#ifdef FIX
  for (int i = 0; i < kThreads; ++i) ok = ok && h[i] == 1000 + kThreads - 1 - i;
#endif
  return verdict("cp_async_read_before_wait", ok);
}
