// Two warps meet at one __syncthreads. Warp 0 gets there first; warp 1 first diverges (lanes
// 0-15 and 16-31 take different paths) and loops a while. The viz tests look at the lane colours
// when warp 0 arrives at the barrier (warp 0 drawn "at barrier") and while warp 1 is diverged
// (half its lanes active, half masked off).
#include <cstdio>

#include <cuda_runtime.h>

__global__ void meet(int* out, int rounds) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  int v = t;
  if (t >= 32) {          // warp 1 only: diverge, then work a while
    if ((t & 31) < 16) {  // VIZAPP-DIVERGE
      for (int i = 0; i < rounds; ++i) v = v * 3 + i;
    } else {
      for (int i = 0; i < rounds; ++i) v = v * 5 - i;
    }
  }
  s[t] = v;
  __syncthreads();  // VIZAPP-BARRIER
  out[t] = s[63 - t];
}

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess) return 1;
  meet<<<1, 64>>>(out, 8);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h[64];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  // Host reference.
  bool ok = true;
  for (int t = 0; t < 64; ++t) {
    const int src = 63 - t;
    int v = src;
    if (src >= 32) {
      if ((src & 31) < 16)
        for (int i = 0; i < 8; ++i) v = v * 3 + i;
      else
        for (int i = 0; i < 8; ++i) v = v * 5 - i;
    }
    ok = ok && h[t] == v;
  }
  cudaFree(out);
  std::printf("%s vizapp_barrier\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
