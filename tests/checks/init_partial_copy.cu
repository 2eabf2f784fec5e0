// init_partial_copy (init): the host copies only the first half of a buffer.
//   first_half reads only what was copied: no report;
//   everything reads the whole buffer: the threads past the copied part read uninitialized
//   memory (init, at that read).
#include "checks.h"

constexpr int n = 64;

__global__ void first_half(const int* in, int* out) {
  out[threadIdx.x] = in[threadIdx.x] + 1;
}

__global__ void everything(const int* in, int* out) {
  out[threadIdx.x] = in[threadIdx.x] * 2;  // EXPECT(init)
}

int main() {
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, h, n / 2 * sizeof(int), cudaMemcpyHostToDevice));
  first_half<<<1, n / 2>>>(in, out);
  CHECK_KERNEL();
  everything<<<1, n>>>(in, out);
  CHECK_KERNEL();
  return verdict("init_partial_copy", true);
}
