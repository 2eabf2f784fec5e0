// One block of 64 threads (two warps) meets at one __syncthreads: each thread writes its shared
// slot, waits, then reads the slot of its mirror thread. The viz tests look at the lane states
// around the barrier.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void mirror(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = 2 * t + 1;
  __syncthreads();  // VIZ-BARRIER
  out[t] = s[63 - t];
}

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 1;
  mirror<<<1, 64>>>(out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h[64];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int t = 0; t < 64; ++t) ok = ok && h[t] == 2 * (63 - t) + 1;
  cudaFree(out);
  std::printf("%s viz_barrier\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
