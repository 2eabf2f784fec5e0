// Lab 01, find the bug: a histogram of the sums of two dice.
//
// Each throw is two dice, faces 1 to 6, stored side by side in rolls; their sum is 2 to 12, so
// the histogram has kSums = 11 bins (bin 0 counts the sum 2). Each block counts its throws
// (grid-stride loop, any grid shape) into its own bins in shared memory, which it zeroes first,
// then adds each of its bins to the global histogram with one atomicAdd. counts starts at zero.
// The check compares counts with the histogram counted on the host, and the total with the
// number of throws.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kSums = 11;
constexpr int kThrows = 500;
constexpr int kBlocks = 2;
constexpr int kThreads = 64;

__host__ __device__ int bin_of(int first_die, int second_die) {
  return first_die + second_die - 2;
}

__global__ void dice_sums(const int* rolls, int throws, unsigned* counts) {
  __shared__ unsigned local[kSums];
  for (int s = threadIdx.x; s < kSums; s += blockDim.x) {
    local[s] = 0;
    __syncthreads();
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < throws; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[bin_of(rolls[2 * i], rolls[2 * i + 1])], 1u);
  }
  __syncthreads();
  for (int s = threadIdx.x; s < kSums; s += blockDim.x) {
    if (local[s] != 0) atomicAdd(&counts[s], local[s]);
  }
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
  std::vector<int> rolls(2 * kThrows);
  unsigned state = 77u;
  for (int& face : rolls) {
    state = state * 1664525u + 1013904223u;
    face = int((state >> 24) % 6u) + 1;
  }

  int* d_rolls = nullptr;
  unsigned* d_counts = nullptr;
  CHECK(cudaMalloc(&d_rolls, rolls.size() * sizeof(int)));
  CHECK(cudaMalloc(&d_counts, kSums * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_rolls, rolls.data(), rolls.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_counts, 0, kSums * sizeof(unsigned)));
  dice_sums<<<kBlocks, kThreads>>>(d_rolls, kThrows, d_counts);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> counts(kSums);
  CHECK(cudaMemcpy(counts.data(), d_counts, kSums * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_rolls));
  CHECK(cudaFree(d_counts));

  std::vector<unsigned> want(kSums, 0u);
  for (int i = 0; i < kThrows; ++i) ++want[bin_of(rolls[2 * i], rolls[2 * i + 1])];
  unsigned total = 0;
  for (int s = 0; s < kSums; ++s) {
    total += counts[s];
    if (counts[s] != want[s]) {
      std::printf("wrong count for the sum %d: %u, expected %u\n", s + 2, counts[s], want[s]);
      return 1;
    }
  }
  if (total != unsigned(kThrows)) {
    std::printf("wrong total: %u throws counted, expected %d\n", total, kThrows);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
