// atomic_ref_message_passing (clean): block 0 fills a buffer, __syncthreads(), and its thread 0
// publishes it with cuda::atomic_ref<int, thread_scope_device>::store(1, memory_order_release);
// thread 0 of block 1 spins on load(memory_order_acquire), then __syncthreads(), and block 1
// reads the buffer. Release/acquire at device scope orders the two blocks: no race.
#include <cuda/atomic>

#include "checks.h"

constexpr int kThreads = 64;
using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void mp(int* data, int* flag, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;
    __syncthreads();
    if (t == 0) device_ref(*flag).store(1, cuda::memory_order_release);
  } else {
    if (t == 0)
      while (device_ref(*flag).load(cuda::memory_order_acquire) == 0) {
      }
    __syncthreads();
    out[t] = data[kThreads - 1 - t];
  }
}

int main() {
  int *data, *flag, *out;
  int h[kThreads];
  CHECK(cudaMalloc(&data, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  mp<<<2, kThreads>>>(data, flag, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int t = 0; t < kThreads; ++t) ok = ok && h[t] == (kThreads - 1 - t) * 11;
  return verdict("atomic_ref_message_passing", ok);
}
