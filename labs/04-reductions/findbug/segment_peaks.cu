// Lab 04, find the bug: the peak of every segment of a signal, reduced in place.
//
// The signal has kBlocks x kThreads samples in global memory; block b owns the segment
// a[b * n .. b * n + n) (n = blockDim.x, a power of two) and leaves the segment's maximum in its
// first element, a[b * n]. The tree uses interleaved addressing: at stride s = 1, 2, 4, ..., n / 2
// thread t, when t is a multiple of 2s, replaces a[t] by max(a[t], a[t + s]) within the segment;
// each level reads what the level before wrote. The check compares every segment's first element
// with the maximum the host finds in that segment of the original signal.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 3;
constexpr int kThreads = 64;

__global__ void segment_peaks(int* a) {
  int* seg = a + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) {
      seg[t] = max(seg[t], seg[t + s]);
      __syncthreads();
    }
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  const int n = kBlocks * kThreads;
  std::vector<int> signal(n);
  for (int i = 0; i < n; ++i) signal[i] = (i * 53 + 17) % 211 - 100;

  int* d_signal = nullptr;
  CHECK(cudaMalloc(&d_signal, n * sizeof(int)));
  CHECK(cudaMemcpy(d_signal, signal.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  segment_peaks<<<kBlocks, kThreads>>>(d_signal);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(n);
  CHECK(cudaMemcpy(got.data(), d_signal, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_signal));

  for (int b = 0; b < kBlocks; ++b) {
    int peak = signal[b * kThreads];
    for (int i = 1; i < kThreads; ++i) peak = std::max(peak, signal[b * kThreads + i]);
    if (got[b * kThreads] != peak) {
      std::printf("segment %d: wrong peak %d, expected %d\n", b, got[b * kThreads], peak);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
