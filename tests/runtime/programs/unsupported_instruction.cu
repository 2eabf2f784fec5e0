// A kernel using an instruction the simulator does not model (the SIMD video instruction
// vabsdiff4). Under the simulator the module still loads: another kernel of it runs normally, and
// the launch whose lane reaches vabsdiff4 fails with a report naming the instruction, the PTX line
// and this file's line, instead of running wrongly. On a GPU both kernels run and the program
// checks their results.
#include <synclab/sim_control.h>

#include "check.h"

__global__ void sad4(const unsigned* a, const unsigned* b, unsigned* out) {
  unsigned r;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a[0]), "r"(b[0]), "r"(0u));  // VIDEO-LINE
  out[0] = r;
}

__global__ void plus_one(unsigned* out) { out[0] += 1; }

int main() {
  unsigned *a, *b, *out;
  CHECK_OK(cudaMallocManaged(&a, 4));
  CHECK_OK(cudaMallocManaged(&b, 4));
  CHECK_OK(cudaMallocManaged(&out, 4));
  *a = 0x01020304u;
  *b = 0x04030201u;
  *out = 41;
  plus_one<<<1, 1>>>(out);  // the module loads, and this kernel never meets vabsdiff4
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaDeviceSynchronize());
  CHECK_EQ_INT(*out, 42);
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
