// init_clean (clean): every read is of initialized memory.
//   after cudaMemset; after a full cudaMemcpy; of what an earlier kernel wrote; of shared memory
//   every thread wrote before a barrier; of a __device__ variable; of cudaMallocHost memory.
// No init report (and no other).
#include "checks.h"

constexpr int kThreads = 64;

__device__ int dev_var[kThreads];

__global__ void fill(int* buf) { buf[threadIdx.x] = threadIdx.x + 1; }

__global__ void reads(const int* zeroed, const int* copied, const int* filled, const int* pinned, int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  s[t] = copied[t];
  __syncthreads();
  out[t] = zeroed[t] + s[kThreads - 1 - t] + filled[t] + dev_var[t] + pinned[t];
}

int main() {
  int *zeroed, *copied, *filled, *out, *pinned;
  int h[kThreads];
  for (int i = 0; i < kThreads; ++i) h[i] = 100 * i;
  CHECK(cudaMalloc(&zeroed, sizeof h));
  CHECK(cudaMalloc(&copied, sizeof h));
  CHECK(cudaMalloc(&filled, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMallocHost(&pinned, sizeof h));
  for (int i = 0; i < kThreads; ++i) pinned[i] = 1000;
  CHECK(cudaMemset(zeroed, 0, sizeof h));
  CHECK(cudaMemcpy(copied, h, sizeof h, cudaMemcpyHostToDevice));
  fill<<<1, kThreads>>>(filled);
  reads<<<1, kThreads>>>(zeroed, copied, filled, pinned, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int t = 0; t < kThreads; ++t) ok = ok && h[t] == 100 * (kThreads - 1 - t) + t + 1 + 1000;
  CHECK(cudaFreeHost(pinned));
  return verdict("init_clean", ok);
}
