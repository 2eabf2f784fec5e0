// Lab 04, find the bug: an xor checksum of a message, folded per block and then over the grid.
//
// The message is kBlocks x kThreads words; block b folds its words in[b * n .. b * n + n)
// (n = blockDim.x, a power of two) with xor: each thread loads one word into the shared array s,
// then a tree with interleaved addressing (stride 1, 2, 4, ...; thread t, a multiple of 2 x
// stride, xors s[t + stride] into s[t]; a __syncthreads() after every level) leaves the block's
// fold in s[0]. Thread 0 of every block then folds s[0] into the grid's checksum *sum, which is 0
// before the launch (xor is associative and commutative: the blocks may do so in any order). The
// check compares *sum with the xor of every word computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 6;
constexpr int kThreads = 32;

__global__ void xor_checksum(const unsigned* in, unsigned* sum) {
  __shared__ unsigned s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] ^= s[t + stride];
    __syncthreads();
  }
  if (t == 0) *sum ^= s[0];
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
  std::vector<unsigned> words(n);
  for (int i = 0; i < n; ++i) words[i] = unsigned(i + 1) * 2654435761u;

  unsigned *d_words = nullptr, *d_sum = nullptr;
  CHECK(cudaMalloc(&d_words, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_sum, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_words, words.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_sum, 0, sizeof(unsigned)));
  xor_checksum<<<kBlocks, kThreads>>>(d_words, d_sum);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned sum = 0;
  CHECK(cudaMemcpy(&sum, d_sum, sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_words));
  CHECK(cudaFree(d_sum));

  unsigned want = 0;
  for (unsigned w : words) want ^= w;
  if (sum != want) {
    std::printf("wrong checksum: 0x%08x, expected 0x%08x\n", sum, want);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
