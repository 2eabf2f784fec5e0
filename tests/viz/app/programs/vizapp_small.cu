// Launches with fewer threads than their warps' lanes: 4 threads (one warp, lanes 4-31 missing),
// then 36 (a full warp and a partial last warp of 4 lanes). The viz tests check that Warp lanes
// draws only the lanes these blocks have.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void fill(int* out) { out[threadIdx.x] = int(threadIdx.x) * 2; }

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 36 * sizeof(int)) != cudaSuccess) return 1;
  fill<<<1, 4>>>(out);
  fill<<<1, 36>>>(out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h[36];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int t = 0; t < 36; ++t) ok = ok && h[t] == 2 * t;
  cudaFree(out);
  std::printf("%s vizapp_small\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
