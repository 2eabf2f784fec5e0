// Lab 08, find the bug: sums of batches of values handed to the GPU through mapped pinned memory.
//
// The host has kBatches batches of kBatch values. It hands them to the GPU one at a time through
// one staging buffer of kBatch ints in mapped pinned memory (no cudaMemcpy): it writes the batch
// through the buffer's host pointer and launches sum_batch on the buffer's device pointer, which
// adds the batch's values into sums[batch] (device memory, zeroed before). send_batches writes the
// first batch, then for each batch launches sum_batch and writes the next batch; main then copies
// the sums back. The check compares every batch's sum with the sum computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kBatches = 5;
constexpr int kBatch = 64;

// One thread per value of the batch.
__global__ void sum_batch(const int* stage, int* sum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kBatch) atomicAdd(sum, stage[i]);
}

// values: kBatches x kBatch ints on the host; h_stage and d_stage: the host's and the device's
// pointers to the mapped staging buffer; d_sums: kBatches ints of device memory. Returns the first
// CUDA error.
cudaError_t send_batches(const std::vector<int>& values, int* h_stage, int* d_stage, int* d_sums) {
  const size_t bytes = kBatch * sizeof(int);
  std::memcpy(h_stage, values.data(), bytes);
  for (int b = 0; b < kBatches; ++b) {
    sum_batch<<<1, kBatch>>>(d_stage, d_sums + b);
    if (b + 1 < kBatches) std::memcpy(h_stage, values.data() + (b + 1) * kBatch, bytes);
  }
  const cudaError_t err = cudaGetLastError();
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
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
  std::vector<int> values(kBatches * kBatch);
  for (int i = 0; i < kBatches * kBatch; ++i) values[i] = (i * 29 + 7) % 50 + (i / kBatch) * 1000;

  int *h_stage = nullptr, *d_stage = nullptr, *d_sums = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h_stage, kBatch * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&d_stage, h_stage, 0));
  CHECK(cudaMalloc(&d_sums, kBatches * sizeof(int)));
  CHECK(cudaMemset(d_sums, 0, kBatches * sizeof(int)));
  CHECK(send_batches(values, h_stage, d_stage, d_sums));
  std::vector<int> sums(kBatches);
  CHECK(cudaMemcpy(sums.data(), d_sums, kBatches * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFreeHost(h_stage));

  for (int b = 0; b < kBatches; ++b) {
    int want = 0;
    for (int i = 0; i < kBatch; ++i) want += values[b * kBatch + i];
    if (sums[b] != want) {
      std::printf("wrong sum of batch %d: %d, expected %d\n", b, sums[b], want);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
