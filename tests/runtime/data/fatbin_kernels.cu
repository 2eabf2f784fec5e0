// Device code for the fatbinary reader's tests: nvcc turns it into fatbinaries (uncompressed,
// Zstandard, LZ4, several architectures, SASS only) and into reference PTX at test-build time.
// Big enough that nvcc's compression actually shrinks it.
#include <cstdio>

__device__ int counters[64];
__constant__ float weights[16];

__device__ float blend(float a, float b, int k) { return a * weights[k & 15] + b * (1.0f - weights[k & 15]); }

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void reduce_sum(const int* in, int* out, int n) {
  __shared__ int partial[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, partial[0]);
}

__global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] % 64], 1u);
}

__global__ void spin_lock(int* lock, int* value) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  *value += 1;
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void mix(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = blend(a[i], b[i], i);
  if (i == 0) printf("mix: n=%d first=%f\n", n, c[0]);
}

template <int N>
__global__ void unrolled(float* p) {
#pragma unroll
  for (int k = 0; k < N; ++k) p[threadIdx.x * N + k] = sinf(p[threadIdx.x * N + k]) * cosf(float(k));
  atomicAdd(&counters[threadIdx.x & 63], N);
}

template __global__ void unrolled<4>(float*);
template __global__ void unrolled<8>(float*);
template __global__ void unrolled<16>(float*);
