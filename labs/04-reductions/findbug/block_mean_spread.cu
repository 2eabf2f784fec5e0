// Lab 04, find the bug: the mean of every block's values and their spread around it.
//
// Block b reads the kThreads values in[b * n .. b * n + n) (n = blockDim.x, a power of two), one
// per thread, and reduces twice with the same shared array s and the same tree (sequential
// addressing, a __syncthreads() after every level). The first tree adds the values; every thread
// then takes the block's mean from s[0] (the integer quotient sum / n). The second tree adds the
// squared distances (x - mean)^2 of the block's values. Thread 0 writes the mean to means[b] and
// the sum of squared distances to spreads[b]. The check recomputes both on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 128;

// s holds one value per thread of the block; the block's sum ends in s[0].
__device__ void tree_sum(int* s) {
  const unsigned t = threadIdx.x;
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
}

__global__ void mean_and_spread(const int* in, int* means, int* spreads) {
  __shared__ int s[kThreads];
  const unsigned t = threadIdx.x;
  const int x = in[blockIdx.x * blockDim.x + t];
  s[t] = x;
  __syncthreads();
  tree_sum(s);
  const int mean = s[0] / int(blockDim.x);
  s[t] = (x - mean) * (x - mean);
  __syncthreads();
  tree_sum(s);
  if (t == 0) {
    means[blockIdx.x] = mean;
    spreads[blockIdx.x] = s[0];
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
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i * 71 + 5) % 97 + 10 * (i / kThreads);

  int *d_values = nullptr, *d_means = nullptr, *d_spreads = nullptr;
  CHECK(cudaMalloc(&d_values, n * sizeof(int)));
  CHECK(cudaMalloc(&d_means, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_spreads, kBlocks * sizeof(int)));
  CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  mean_and_spread<<<kBlocks, kThreads>>>(d_values, d_means, d_spreads);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> means(kBlocks), spreads(kBlocks);
  CHECK(cudaMemcpy(means.data(), d_means, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(spreads.data(), d_spreads, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_values));
  CHECK(cudaFree(d_means));
  CHECK(cudaFree(d_spreads));

  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0;
    for (int i = 0; i < kThreads; ++i) sum += values[b * kThreads + i];
    const int mean = sum / kThreads;
    int spread = 0;
    for (int i = 0; i < kThreads; ++i) {
      const int d = values[b * kThreads + i] - mean;
      spread += d * d;
    }
    if (means[b] != mean) {
      std::printf("block %d: wrong mean %d, expected %d\n", b, means[b], mean);
      return 1;
    }
    if (spreads[b] != spread) {
      std::printf("block %d: wrong spread %d, expected %d\n", b, spreads[b], spread);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
