// Relocatable device code (-rdc=true) across two files: a kernel here calls a __device__
// function and uses a __device__ variable defined in rdc_other.cu; both files have a static
// helper and a static kernel of the same name, which must stay apart. synclab-nvcc generates
// the registration glue nvlink would, and simcudart joins the modules' PTX.
#include "../check.h"

extern __device__ int triple(int x);     // rdc_other.cu
extern __device__ int other_value;       // rdc_other.cu

__device__ int main_value = 5;
static __device__ int helper(int x) { return x + 1000; }
static __global__ void same_name(int* out) { out[2] = helper(0); }

__global__ void main_kernel(int* out) {
  out[0] = main_value * 2;
  out[3] = triple(other_value) + helper(1);  // crosses files
}

void run_other(int* out);  // rdc_other.cu
int other_value_on_host();

int main() {
  int* out = nullptr;
  CHECK_OK(cudaMalloc(&out, 6 * sizeof(int)));
  run_other(out);  // sets other_value = 7 first
  main_kernel<<<1, 1>>>(out);
  same_name<<<1, 1>>>(out);
  CHECK_OK(cudaGetLastError());
  int h[6] = {};
  CHECK_OK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], 10);
  CHECK_EQ_INT(h[1], 3 * 7);
  CHECK_EQ_INT(h[2], 1000);          // this file's helper
  CHECK_EQ_INT(h[3], 3 * 7 + 1001);
  CHECK_EQ_INT(h[4], 2000);          // rdc_other.cu's helper, through its own same_name kernel
  CHECK_EQ_INT(other_value_on_host(), 7);
  return finish("rdc");
}
