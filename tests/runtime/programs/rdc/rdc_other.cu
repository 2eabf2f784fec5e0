#include <cuda_runtime.h>

__device__ int other_value;
__device__ int triple(int x) { return 3 * x; }
static __device__ int helper(int x) { return x + 2000; }
static __global__ void same_name(int* out) { out[4] = helper(0); }
__global__ void other_kernel(int* out) { out[1] = triple(other_value); }

void run_other(int* out) {
  int seven = 7;
  cudaMemcpyToSymbol(other_value, &seven, sizeof seven);
  other_kernel<<<1, 1>>>(out);
  same_name<<<1, 1>>>(out);
}

int other_value_on_host() {
  int v = 0;
  cudaMemcpyFromSymbol(&v, other_value, sizeof v);
  return v;
}
