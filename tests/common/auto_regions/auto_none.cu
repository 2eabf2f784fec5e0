// No lock and no flag: a scaled copy that re-reads a __device__ scale word (volatile) at every
// element, a shared-memory tree reduction with __syncthreads, and atomicAdd of the blocks' sums.
// None of its words is a lock or a flag, so a trace of it has no region. Prints PASS when the
// total is right.
#include <cstdio>

#include <cuda_runtime.h>

constexpr int kThreads = 128;

__device__ int scale;
__device__ int total;

__global__ void scaled_sum(const int* in, int* out, int n) {
  __shared__ int partial[kThreads];
  int mine = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = in[i] * *(volatile int*)&scale;
    mine += out[i];
  }
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(&total, partial[0]);
}

int main() {
  const int n = 1024, k = 3;
  int host[n];
  long long expected = 0;
  for (int i = 0; i < n; ++i) {
    host[i] = i % 7;
    expected += (long long)k * host[i];
  }
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&out, n * sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(scale, &k, sizeof k);
  scaled_sum<<<2, kThreads>>>(in, out, n);
  cudaError_t err = cudaDeviceSynchronize();
  int got = 0;
  cudaMemcpyFromSymbol(&got, total, sizeof got);
  std::printf("total = %d (expected %lld, %s)\n", got, expected, cudaGetErrorString(err));
  const bool ok = err == cudaSuccess && got == expected;
  std::printf("%s auto_none\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
