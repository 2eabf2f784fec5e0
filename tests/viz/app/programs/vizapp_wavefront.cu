// A wavefront over an N x N matrix (N = 32 by default, or argv[1]): cell (i, j) is
// (north + west) mod 1000, with 1 on the top row and left column. Thread i computes row i; round d
// does anti-diagonal d, and a __syncthreads separates the rounds. The matrix is a "matrix" region,
// so the viz draws it as a heat map of when each cell was completed. With argv[2] "diagonals"
// each anti-diagonal is a launch of its own (2N - 1 launches), as a wavefront of launches is.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime.h>

#include <synclab/regions.h>

__global__ void wavefront(int* g, int n) {
  const int i = threadIdx.x;
  for (int d = 0; d < 2 * n - 1; ++d) {
    const int j = d - i;
    if (i < n && j >= 0 && j < n) {
      const int v = (i == 0 || j == 0) ? 1 : (g[(i - 1) * n + j] + g[i * n + j - 1]) % 1000;
      g[i * n + j] = v;
    }
    __syncthreads();
  }
}

// Anti-diagonal d alone: thread i computes cell (i, d - i).
__global__ void wavefront_diagonal(int* g, int n, int d) {
  const int i = threadIdx.x, j = d - i;
  if (i < n && j >= 0 && j < n) g[i * n + j] = (i == 0 || j == 0) ? 1 : (g[(i - 1) * n + j] + g[i * n + j - 1]) % 1000;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  if (n < 2 || n > 64) return 2;
  int* g = nullptr;
  const size_t bytes = size_t(n) * n * sizeof(int);
  if (cudaMalloc(&g, bytes) != cudaSuccess) return 1;
  cudaMemset(g, 0, bytes);
  if (synclab_region(g, bytes, "grid", "matrix", unsigned(n), unsigned(n)) != 0) return 1;
  if (argc > 2 && std::string(argv[2]) == "diagonals") {
    for (int d = 0; d < 2 * n - 1; ++d) wavefront_diagonal<<<1, ((n + 31) / 32) * 32>>>(g, n, d);
  } else {
    wavefront<<<1, ((n + 31) / 32) * 32>>>(g, n);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int* h = new int[size_t(n) * n];
  cudaMemcpy(h, g, bytes, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int want = (i == 0 || j == 0) ? 1 : (h[(i - 1) * n + j] + h[i * n + j - 1]) % 1000;
      ok = ok && h[i * n + j] == want;
    }
  delete[] h;
  cudaFree(g);
  std::printf("%s vizapp_wavefront\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
