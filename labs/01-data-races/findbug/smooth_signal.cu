// Lab 01, find the bug: smoothing a sampled signal with a three-point stencil.
//
// The signal has n = kBlocks x kThreads samples, one per thread. Each block copies its part of the
// signal, plus one sample on each side (the halo), into a tile in shared memory; then every thread
// writes out[i] = (in[i - 1] + 2 in[i] + in[i + 1]) / 4 from the tile. At the two ends of the
// signal a neighbour beyond the end is replaced by the end sample itself. The check compares out with
// the same stencil computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 3;
constexpr int kThreads = 96;

__device__ int sample_at(const int* in, int n, int i) {
  if (i < 0) return in[0];
  if (i >= n) return in[n - 1];
  return in[i];
}

__global__ void smooth_signal(const int* in, int n, int* out) {
  __shared__ int tile[kThreads + 2];  // tile[t + 1] holds in[block start + t]
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  tile[t + 1] = sample_at(in, n, i);
  if (t == 0) tile[0] = sample_at(in, n, i - 1);
  if (t == blockDim.x - 1) tile[t + 2] = sample_at(in, n, i + 1);
  const int left = tile[t], centre = tile[t + 1], right = tile[t + 2];
  if (i < n) out[i] = (left + 2 * centre + right) / 4;
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_));   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  const int n = kBlocks * kThreads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 + ((i / 7) % 2) * 200;

  int *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
  smooth_signal<<<kBlocks, kThreads>>>(d_in, n, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));

  for (int i = 0; i < n; ++i) {
    const int left = in[i > 0 ? i - 1 : 0], right = in[i < n - 1 ? i + 1 : n - 1];
    const int want = (left + 2 * in[i] + right) / 4;
    if (out[i] != want) {
      std::printf("wrong sample %d: %d, expected %d\n", i, out[i], want);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
