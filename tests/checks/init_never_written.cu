// init_never_written (init): a kernel reads cudaMalloc memory that no kernel, copy or memset has
// written. One init report, at the read.
#include "checks.h"

__global__ void sum(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2;  // EXPECT(init)
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  sum<<<2, 32>>>(in, out);
  CHECK_KERNEL();
  return verdict("init_never_written", true);
}
