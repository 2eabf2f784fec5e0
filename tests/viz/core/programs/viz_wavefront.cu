// A wavefront over an 8x8 matrix: cell (i, j) = cell (i-1, j) + cell (i, j-1), with 1 on the top
// row and the left column. Thread i computes row i; anti-diagonal d is done in round d, and a
// __syncthreads separates the rounds, so the cells of diagonal d are written before those of
// diagonal d + 1. The matrix is a "matrix" region for the visualizer's heat map.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

constexpr int N = 8;

__global__ void wavefront(int* g) {
  const int i = threadIdx.x;
  for (int d = 0; d < 2 * N - 1; ++d) {
    const int j = d - i;
    if (j >= 0 && j < N) {
      const int v = (i == 0 || j == 0) ? 1 : g[(i - 1) * N + j] + g[i * N + j - 1];
      g[i * N + j] = v;  // VIZ-CELL
    }
    __syncthreads();
  }
}

int main() {
  int* g = nullptr;
  if (cudaMalloc(&g, N * N * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(g, 0, N * N * sizeof(int));
  if (synclab_region(g, N * N * sizeof(int), "grid", "matrix", N, N) != 0) return 1;
  wavefront<<<1, N>>>(g);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h[N * N];
  cudaMemcpy(h, g, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      const int want = (i == 0 || j == 0) ? 1 : h[(i - 1) * N + j] + h[i * N + j - 1];
      ok = ok && h[i * N + j] == want;
    }
  cudaFree(g);
  std::printf("%s viz_wavefront\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
