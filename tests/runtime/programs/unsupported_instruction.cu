// A kernel using an instruction the simulator does not model (the SIMD video instruction
// vabsdiff4). Under the simulator the module is refused when it loads, with a message naming the
// instruction, the PTX line and this file's line; the launch fails instead of running wrongly.
// On a GPU the kernel runs and the program checks its result.
#include <synclab/sim_control.h>

#include "check.h"

__global__ void sad4(const unsigned* a, const unsigned* b, unsigned* out) {
  unsigned r;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a[0]), "r"(b[0]), "r"(0u));  // VIDEO-LINE
  out[0] = r;
}

int main() {
  unsigned *a, *b, *out;
  CHECK_OK(cudaMallocManaged(&a, 4));
  CHECK_OK(cudaMallocManaged(&b, 4));
  CHECK_OK(cudaMallocManaged(&out, 4));
  *a = 0x01020304u;
  *b = 0x04030201u;
  *out = 0;
  sad4<<<1, 1>>>(a, b, out);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  if (synclab::sim::active()) {
    CHECK_TRUE(launch != cudaSuccess || sync != cudaSuccess);
  } else {
    CHECK_OK(launch);
    CHECK_OK(sync);
    CHECK_EQ_INT(*out, 3 + 1 + 1 + 3);  // |1-4| + |2-3| + |3-2| + |4-1|
  }
  return finish("unsupported_instruction");
}
