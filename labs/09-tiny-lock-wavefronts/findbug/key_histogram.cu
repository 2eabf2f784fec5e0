// Lab 09, find the bug: a weighted histogram of keys, each shared bin guarded by its lock bit.
//
// Each block of 64 threads takes 64 keys (0..kBins-1) with their weights. Thread i adds the
// weight of key i to the block's bin for that key, a counter in shared memory, while it holds the
// counter's lock bit. The lock bits emulate Fermi's lock unit: 1024 bits kept in 32 shared words,
// the bit of a word chosen by its address bits 2-11. When every thread has counted, the block adds
// its bins to the global histogram. The check compares the histogram with one computed on the host.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 64;
constexpr int kBins = 5;

// 1024 lock bits: bit b is bit (b % 32) of word[b / 32].
struct LockBits {
  unsigned word[32];
};

__device__ unsigned lock_bit(const void* p) { return unsigned(reinterpret_cast<uintptr_t>(p) >> 2) & 1023u; }

// One try at the bit of p: true when the caller now holds it (and sees the last holder's writes).
__device__ bool try_lock_bit(LockBits& t, const void* p) {
  const unsigned b = lock_bit(p), mask = 1u << (b & 31);
  const bool got = !(atomicOr(&t.word[b >> 5], mask) & mask);
  if (got) __threadfence_block();
  return got;
}

// Gives the bit of p back, after the caller's writes.
__device__ void unlock_bit(LockBits& t, const void* p) {
  const unsigned b = lock_bit(p);
  __threadfence_block();
  atomicAnd(&t.word[b >> 5], ~(1u << (b & 31)));
}

__global__ void key_histogram(const int* keys, const int* weights, int* hist) {
  __shared__ LockBits locks;
  __shared__ int bin[kBins];
  for (int w = int(threadIdx.x); w < 32; w += int(blockDim.x)) locks.word[w] = 0;
  for (int k = int(threadIdx.x); k < kBins; k += int(blockDim.x)) bin[k] = 0;
  __syncthreads();

  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  int* counter = &bin[keys[i]];
  while (!try_lock_bit(locks, counter)) {
  }
  *counter += weights[i];
  unlock_bit(locks, counter);

  __syncthreads();
  for (int k = int(threadIdx.x); k < kBins; k += int(blockDim.x)) atomicAdd(&hist[k], bin[k]);
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
  std::vector<int> keys(n), weights(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = (i * 7 + i / 5) % kBins;
    weights[i] = i % 9 + 1;
  }

  int *d_keys = nullptr, *d_weights = nullptr, *d_hist = nullptr;
  CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
  CHECK(cudaMalloc(&d_weights, n * sizeof(int)));
  CHECK(cudaMalloc(&d_hist, kBins * sizeof(int)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_weights, weights.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_hist, 0, kBins * sizeof(int)));
  key_histogram<<<kBlocks, kThreads>>>(d_keys, d_weights, d_hist);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> hist(kBins);
  CHECK(cudaMemcpy(hist.data(), d_hist, kBins * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(d_weights));
  CHECK(cudaFree(d_hist));

  std::vector<int> expected(kBins, 0);
  for (int i = 0; i < n; ++i) expected[keys[i]] += weights[i];
  for (int k = 0; k < kBins; ++k) {
    if (hist[k] != expected[k]) {
      std::printf("wrong bin %d: %d, expected %d\n", k, hist[k], expected[k]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
