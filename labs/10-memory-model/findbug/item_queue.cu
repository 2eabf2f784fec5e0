// Lab 10, find the bug: a warp of one block hands batches of items to a warp of another block.
//
// Two blocks of one warp each. The producer (block 0) makes kBatches batches of 32 items: in batch
// k, lane l writes items[32 k + l] = make_item(k, l); when the batch is written, lane 0 advances
// the queue's tail, a counter in global memory, to 32 (k + 1). The consumer (block 1) takes the
// batches in order: lane 0 waits until the tail has reached 32 (k + 1), and after a __syncwarp()
// lane l reads items[32 k + l] and adds it to its sum. At the end lane l writes its sum to
// sums[l]. The check compares sums with the sums computed on the host.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>
#include <vector>

constexpr int kBatches = 4;

__host__ __device__ int make_item(int batch, int lane) { return (batch + 1) * 1000 + lane * lane; }

__global__ void item_queue(int* items, int* tail, int* sums) {
  const int lane = int(threadIdx.x);
  cuda::atomic_ref<int, cuda::thread_scope_device> queue_tail(*tail);
  if (blockIdx.x == 0) {
    for (int k = 0; k < kBatches; ++k) {
      items[32 * k + lane] = make_item(k, lane);
      __syncwarp();
      if (lane == 0) queue_tail.store(32 * (k + 1), cuda::std::memory_order_relaxed);
    }
  } else {
    int sum = 0;
    for (int k = 0; k < kBatches; ++k) {
      if (lane == 0) {
        while (queue_tail.load(cuda::std::memory_order_acquire) < 32 * (k + 1)) {
        }
      }
      __syncwarp();
      sum += items[32 * k + lane];
    }
    sums[lane] = sum;
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
  int *d_items = nullptr, *d_tail = nullptr, *d_sums = nullptr;
  CHECK(cudaMalloc(&d_items, 32 * kBatches * sizeof(int)));
  CHECK(cudaMalloc(&d_tail, sizeof(int)));
  CHECK(cudaMalloc(&d_sums, 32 * sizeof(int)));
  CHECK(cudaMemset(d_items, 0, 32 * kBatches * sizeof(int)));
  CHECK(cudaMemset(d_tail, 0, sizeof(int)));
  CHECK(cudaMemset(d_sums, 0, 32 * sizeof(int)));
  item_queue<<<2, 32>>>(d_items, d_tail, d_sums);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> sums(32);
  CHECK(cudaMemcpy(sums.data(), d_sums, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_items));
  CHECK(cudaFree(d_tail));
  CHECK(cudaFree(d_sums));

  for (int lane = 0; lane < 32; ++lane) {
    int expected = 0;
    for (int k = 0; k < kBatches; ++k) expected += make_item(k, lane);
    if (sums[lane] != expected) {
      std::printf("wrong sum of lane %d: %d, expected %d\n", lane, sums[lane], expected);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
