// One warp splits at a branch: lanes 0-15 run a loop over `in`, lanes 16-31 call a different
// function. Neither side can be turned into predicated code, so the warp really diverges.
#include <cstdio>

#include <cuda_runtime.h>

__device__ __noinline__ int low_half(const int* in, int t) {
  int acc = 0;
  for (int i = 0; i < 4; ++i) acc += in[(t + i) & 31];  // VIZ-THEN
  return acc;
}

__device__ __noinline__ int high_half(const int* in, int t) {
  return in[t] * 5 - 2;  // VIZ-ELSE
}

__global__ void diverge(const int* in, int* out) {
  const int t = threadIdx.x;
  int v;
  if (t < 16) {
    v = low_half(in, t);
  } else {
    v = high_half(in, t);
  }
  out[t] = v;
}

int main() {
  int h_in[32], h_out[32];
  for (int i = 0; i < 32; ++i) h_in[i] = i + 1;
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, sizeof h_in) != cudaSuccess || cudaMalloc(&out, sizeof h_out) != cudaSuccess) return 1;
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  diverge<<<1, 32>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int t = 0; t < 32; ++t) {
    int want = 0;
    if (t < 16)
      for (int i = 0; i < 4; ++i) want += h_in[(t + i) & 31];
    else
      want = h_in[t] * 5 - 2;
    ok = ok && h_out[t] == want;
  }
  cudaFree(in);
  cudaFree(out);
  std::printf("%s viz_divergence\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
