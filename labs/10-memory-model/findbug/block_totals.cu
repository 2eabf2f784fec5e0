// Lab 10, find the bug: the sum of an array in one launch, finished by the last block to arrive.
//
// kBlocks blocks of kThreads threads. Each block sums its kThreads elements in shared memory (a
// tree of halving steps) and thread 0 stores the block's total in partial[block]. Thread 0 then
// takes a ticket from a counter in global memory (atomicAdd); the block that draws the last
// ticket, kBlocks - 1, is the last to arrive, and its thread 0 adds the kBlocks totals into
// *total. The check compares *total with the sum computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;

__global__ void block_totals(const int* in, int* partial, unsigned* tickets, int* total) {
  __shared__ int s[kThreads];
  __shared__ bool last;
  const int t = int(threadIdx.x);
  s[t] = in[blockIdx.x * kThreads + t];
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }

  if (t == 0) {
    partial[blockIdx.x] = s[0];
    const unsigned ticket = atomicAdd(tickets, 1u);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    __threadfence();
    int sum = 0;
    for (int b = 0; b < int(gridDim.x); ++b) sum += partial[b];
    *total = sum;
  }
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
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 20;

  int *d_in = nullptr, *d_partial = nullptr, *d_total = nullptr;
  unsigned* d_tickets = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_partial, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_total, sizeof(int)));
  CHECK(cudaMalloc(&d_tickets, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_partial, 0, kBlocks * sizeof(int)));
  CHECK(cudaMemset(d_total, 0, sizeof(int)));
  CHECK(cudaMemset(d_tickets, 0, sizeof(unsigned)));
  block_totals<<<kBlocks, kThreads>>>(d_in, d_partial, d_tickets, d_total);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int total = 0;
  CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_total));
  CHECK(cudaFree(d_tickets));

  int expected = 0;
  for (int i = 0; i < n; ++i) expected += in[i];
  if (total != expected) {
    std::printf("wrong sum: %d, expected %d\n", total, expected);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
