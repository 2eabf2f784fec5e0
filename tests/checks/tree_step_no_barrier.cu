// tree_step_no_barrier: the first steps of a shared-memory tree reduction over 128 threads (four
// warps) without the __syncthreads() between them: at step 32, thread t adds s[t + 32], which
// thread t + 32 of the next warp wrote at step 64. The two accesses are on one source line, but that
// line is not a lost update (no thread writes the word it reads from another thread): the report
// must not advise an atomic, only the ordering that is missing. -DFIX adds the barrier the
// report's advice names, and then nothing is reported.
#include "checks.h"

__global__ void tree(const int* in, int* out) {
  __shared__ int s[128];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int off = 64; off >= 32; off /= 2) {  // the steps between warps (the rest: thread 0 below)
    if (t < off) s[t] += s[t + off];  // EXPECT(race)
#ifdef FIX
    __syncthreads();
#endif
  }
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int i = 0; i < 32; ++i) sum += s[i];
    *out = sum;
  }
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 128 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  int h[128];
  for (int i = 0; i < 128; ++i) h[i] = i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  tree<<<1, 128>>>(in, out);
  CHECK_KERNEL();
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  if (sum != 128 * 127 / 2) printf("sum %d, expected %d\n", sum, 128 * 127 / 2);
  return verdict("tree_step_no_barrier", true);
}
