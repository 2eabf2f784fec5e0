// Lab 07, find the bug: rounds in which every value adds the total of the whole grid.
//
// n = blocks x threads values, one per thread. In each round r every thread adds the sum of all n
// values as they were at the start of the round: x[i] = (x[i] + total) mod kModulus. A round has
// two phases: each block sums its values in shared memory and thread 0 writes the block's partial
// sum to partial[r % 2][block]; then, after a grid barrier, every thread adds up the partial sums.
// The grid barrier is a sense-reversing one: one counter that the last block to arrive resets to
// 0, and a flag (the sense) that it then flips; the other blocks wait for the flip. Each block's
// thread 0 keeps the sense it waits for in a register. All blocks must be resident at once (4
// blocks of 64 threads). The check compares the values after kRounds rounds with a host loop.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;
constexpr int kRounds = 3;
constexpr unsigned kModulus = 1000003u;

__device__ void sense_barrier(unsigned* count, unsigned* sense, unsigned& my_sense) {
  __syncthreads();
  if (threadIdx.x == 0) {
    my_sense = 1u - my_sense;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      atomicExch(count, 0u);
      __threadfence();
      *(volatile unsigned*)sense = my_sense;
    } else {
      while (*(volatile unsigned*)sense != my_sense) {
      }
    }
  }
  __syncthreads();
}

// partial: 2 x blocks words. count and sense start at 0.
__global__ void add_grid_total(unsigned* values, unsigned* partial, unsigned* count, unsigned* sense,
                               int rounds) {
  __shared__ unsigned sums[kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = values[i];
  unsigned my_sense = 0;
  for (int r = 0; r < rounds; ++r) {
    sums[threadIdx.x] = x;
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      __syncthreads();
      if (threadIdx.x < half) sums[threadIdx.x] = (sums[threadIdx.x] + sums[threadIdx.x + half]) % kModulus;
    }
    unsigned* mine = partial + (r % 2) * gridDim.x;
    if (threadIdx.x == 0) mine[blockIdx.x] = sums[0];
    sense_barrier(count, sense, my_sense);
    unsigned total = 0;
    for (int b = 0; b < int(gridDim.x); ++b) total = (total + mine[b]) % kModulus;
    x = (x + total) % kModulus;
  }
  values[i] = x;
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
  std::vector<unsigned> want(n);
  for (int i = 0; i < n; ++i) want[i] = unsigned((i * 37 + 11) % 101);

  unsigned *values = nullptr, *partial = nullptr, *state = nullptr;
  CHECK(cudaMalloc(&values, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&partial, 2 * kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&state, 2 * sizeof(unsigned)));
  CHECK(cudaMemcpy(values, want.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(partial, 0, 2 * kBlocks * sizeof(unsigned)));
  CHECK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
  add_grid_total<<<kBlocks, kThreads>>>(values, partial, state, state + 1, kRounds);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n);
  CHECK(cudaMemcpy(got.data(), values, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(values));
  CHECK(cudaFree(partial));
  CHECK(cudaFree(state));

  for (int r = 0; r < kRounds; ++r) {
    unsigned total = 0;
    for (int i = 0; i < n; ++i) total = (total + want[i]) % kModulus;
    for (int i = 0; i < n; ++i) want[i] = (want[i] + total) % kModulus;
  }
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      std::printf("wrong value %d after %d rounds: %u, expected %u\n", i, kRounds, got[i], want[i]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
