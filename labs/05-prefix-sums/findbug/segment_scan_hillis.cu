// Lab 05, find the bug: an inclusive scan of each block's segment by Hillis-Steele in shared memory.
//
// The input is kBlocks segments of kThreads values; block b scans segment b on its own, in place in
// the shared array s, and thread t writes s[t] to out[b * kThreads + t]. At level off = 1, 2, 4, ...
// every thread t >= off adds to s[t] the value that s[t - off] held at the start of the level, kept
// in a temporary (Hillis and Steele: log2(n) levels, n threads). After the last level s[t] is the
// sum of values 0..t of the segment. The check compares every segment with a host scan.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 64;

__global__ void scan_segments(const int* in, int* out) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  const int base = blockIdx.x * blockDim.x;
  s[t] = in[base + t];
  __syncthreads();
  for (int off = 1; off < int(blockDim.x); off *= 2) {
    int before = 0;
    if (t >= off) {
      before = s[t - off];
      __syncthreads();
      s[t] += before;
    }
    __syncthreads();
  }
  out[base + t] = s[t];
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

int main() {
  const int n = kBlocks * kThreads;
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i * 29 + 7) % 23 - 5;

  int *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  scan_segments<<<kBlocks, kThreads>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(n);
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));

  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0;
    for (int t = 0; t < kThreads; ++t) {
      const int i = b * kThreads + t;
      sum += values[i];
      if (got[i] != sum) {
        std::printf("wrong scan: out[%d] (block %d, thread %d) is %d, expected %d\n", i, b, t, got[i], sum);
        return 1;
      }
    }
  }
  std::printf("ok\n");
  return 0;
}
