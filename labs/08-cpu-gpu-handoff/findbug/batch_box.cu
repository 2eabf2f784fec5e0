// Lab 08, find the bug: the host hands batches to a persistent block through a one-batch box.
//
// The box lives in mapped pinned memory; its flag `full` says who may touch it. The host, in
// post_batch, waits until full is 0, writes the batch (count values), then sets full to 1. The
// kernel's block waits (thread 0 polls, then the block meets) until full is 1, sums weight(v) over
// the batch, writes the sum to `result` and sets full back to 0. The host, in take_result, waits
// until full is 0 and reads the result. A batch of count 0 asks the kernel to return. The check
// sends kBatches batches and compares every result with the sum computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <cuda/atomic>

template <class T>
using SysAtomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

constexpr int kWidth = 64;  // the most values a batch holds; the kernel's block has kWidth threads

struct Box {
  int full;
  int count;
  int values[kWidth];
  int result;
};

__host__ __device__ inline int weight(int v) { return v * v % 97 + 1; }

__global__ void batch_server(Box* box) {
  __shared__ int partial[kWidth];
  SysAtomic<int> full(box->full);
  const int t = threadIdx.x;
  for (;;) {
    if (t == 0) {
      while (full.load(cuda::memory_order_acquire) != 1) {
      }
    }
    __syncthreads();
    const int count = box->count;
    if (count == 0) return;
    partial[t] = t < count ? weight(box->values[t]) : 0;
    for (int half = kWidth / 2; half > 0; half /= 2) {
      __syncthreads();
      if (t < half) partial[t] += partial[t + half];
    }
    if (t == 0) {
      box->result = partial[0];
      full.store(0, cuda::memory_order_release);
    }
    __syncthreads();
  }
}

// Host side. True while waiting makes sense: every 64 calls it asks whether the launch still runs
// and gives up at the second answer that it does not (the first allows one more look).
bool keep_waiting() {
  static unsigned calls = 0, ended = 0;
  if (++calls % 64 != 0) return true;
  if (cudaStreamQuery(0) == cudaErrorNotReady) return true;
  return ++ended < 2;
}

// Puts values[0 .. count) into the box; false when the kernel stopped taking batches.
bool post_batch(Box* box, const int* values, int count) {
  SysAtomic<int> full(box->full);
  while (full.load(cuda::memory_order_acquire) != 0) {
    if (!keep_waiting()) return false;
  }
  box->count = count;
  for (int i = 0; i < count; ++i) box->values[i] = values[i];
  full.store(1, cuda::memory_order_relaxed);
  return true;
}

// Waits for the kernel's sum of the batch in the box; false when it stopped answering.
bool take_result(Box* box, int* result) {
  SysAtomic<int> full(box->full);
  while (full.load(cuda::memory_order_acquire) != 0) {
    if (!keep_waiting()) return false;
  }
  *result = box->result;
  return true;
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

constexpr int kBatches = 4;

int main() {
  Box *h_box = nullptr, *d_box = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h_box, sizeof(Box), cudaHostAllocMapped));
  *h_box = Box{};
  CHECK(cudaHostGetDevicePointer(&d_box, h_box, 0));
  batch_server<<<1, kWidth>>>(d_box);
  CHECK(cudaGetLastError());

  bool right = true;
  for (int b = 0; b < kBatches; ++b) {
    const int count = kWidth - 9 * b;
    int values[kWidth];
    int want = 0;
    for (int i = 0; i < count; ++i) {
      values[i] = (b * 131 + i * 17) % 1000;
      want += weight(values[i]);
    }
    int got = 0;
    if (!post_batch(h_box, values, count) || !take_result(h_box, &got)) {
      std::printf("batch %d: the kernel stopped answering\n", b);
      cudaDeviceSynchronize();  // it has ended: collect its error
      return 1;
    }
    if (right && got != want) {
      std::printf("wrong result of batch %d: %d, expected %d\n", b, got, want);
      right = false;
    }
  }
  if (!post_batch(h_box, nullptr, 0)) {
    std::printf("the kernel did not take the last, empty batch\n");
    cudaDeviceSynchronize();  // it has ended: collect its error
    return 1;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h_box));
  if (!right) return 1;
  std::printf("ok\n");
  return 0;
}
