// spinlocks (clean): global spin locks taken by one leader thread per warp (never by two lanes of
// one warp), from four warps in each of two blocks; the critical sections do plain
// read-modify-writes of global words. Correct under every schedule: run under pct with many seeds.
//   fenced: atomicCAS to take the lock, __threadfence() after taking it (acquire),
//     __threadfence() before the atomicExch that releases it (release);
//   acq_rel: cuda::atomic_ref<int, thread_scope_device>: compare_exchange_weak with
//     memory_order_acquire to take it, store(0, memory_order_release) to release it.
#include <cuda/atomic>

#include "checks.h"

constexpr int kThreads = 128;
constexpr int kBlocks = 2;
constexpr int kRounds = 3;

using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void fenced(int* lock, int* counter, int* sum) {
  const int t = threadIdx.x;
  if (t % 32 != 0) return;
  for (int r = 0; r < kRounds; ++r) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *counter = *counter + 1;
    *sum = *sum + blockIdx.x * kThreads + t;
    __threadfence();
    atomicExch(lock, 0);
  }
}

__global__ void acq_rel(int* lock, int* counter, int* sum) {
  const int t = threadIdx.x;
  if (t % 32 != 0) return;
  device_ref l(*lock);
  for (int r = 0; r < kRounds; ++r) {
    int expected = 0;
    while (!l.compare_exchange_weak(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed))
      expected = 0;
    *counter = *counter + 1;
    *sum = *sum + blockIdx.x * kThreads + t;
    l.store(0, cuda::memory_order_release);
  }
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 3 * sizeof(int)));
  int want = 0;
  for (int b = 0; b < kBlocks; ++b)
    for (int w = 0; w < kThreads / 32; ++w) want += kRounds * (b * kThreads + w * 32);
  const int entries = kBlocks * (kThreads / 32) * kRounds;
  bool ok = true;
  int h[3];
  CHECK(cudaMemset(d, 0, 3 * sizeof(int)));
  fenced<<<kBlocks, kThreads>>>(d, d + 1, d + 2);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  ok = ok && h[0] == 0 && h[1] == entries && h[2] == want;
  CHECK(cudaMemset(d, 0, 3 * sizeof(int)));
  acq_rel<<<kBlocks, kThreads>>>(d, d + 1, d + 2);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  ok = ok && h[0] == 0 && h[1] == entries && h[2] == want;
  return verdict("spinlocks", ok);
}
