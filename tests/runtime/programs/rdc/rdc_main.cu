// Relocatable device code (-rdc=true): each .cu file's kernels and variables register through
// the link glue synclab-nvcc generates in place of nvlink's device link.
#include "../check.h"

__device__ int main_value = 5;
__global__ void main_kernel(int* out) { out[0] = main_value * 2; }

void run_other(int* out);  // rdc_other.cu
extern int other_value_on_host();

int main() {
  int* out = nullptr;
  CHECK_OK(cudaMalloc(&out, 2 * sizeof(int)));
  main_kernel<<<1, 1>>>(out);
  run_other(out);
  int h[2] = {};
  CHECK_OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], 10);
  CHECK_EQ_INT(h[1], 3 * 7);
  CHECK_EQ_INT(other_value_on_host(), 7);
  return finish("rdc");
}
