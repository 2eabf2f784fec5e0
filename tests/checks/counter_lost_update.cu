// counter_lost_update: 64 threads in two warps add to one shared counter with `count += v`, a
// read and a store of the same word on one line: another thread's store can fall between a
// thread's read and its store, and its update is lost. The report says so and advises one atomic
// operation; -DFIX applies that advice (atomicAdd), and then nothing is reported.
#include "checks.h"

__global__ void count(const int* in, int* out) {
  __shared__ int total;
  const int t = threadIdx.x;
  if (t == 0) total = 0;
  __syncthreads();
#ifdef FIX
  atomicAdd(&total, in[t]);
#else
  total += in[t];  // EXPECT(race)
#endif
  __syncthreads();
  if (t == 0) *out = total;
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = 1;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  count<<<1, 64>>>(in, out);
  CHECK_KERNEL();
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  if (sum != 64) printf("sum %d, expected 64 (updates lost)\n", sum);
  return verdict("counter_lost_update", true);
}
