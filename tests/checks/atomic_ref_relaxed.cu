// atomic_ref_relaxed (race): atomic_ref_message_passing with memory_order_relaxed for both the
// flag's store and its load. Relaxed atomics are atomic but order nothing else: block 1's reads of
// the buffer race with block 0's writes (ERROR, both models). The flag itself does not race.
#include <cuda/atomic>

#include "checks.h"

constexpr int kThreads = 64;
using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void mp(int* data, int* flag, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;  // EXPECT(race)
    __syncthreads();
    if (t == 0) device_ref(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    if (t == 0)
      while (device_ref(*flag).load(cuda::memory_order_relaxed) == 0) {
      }
    __syncthreads();
    out[t] = data[kThreads - 1 - t];  // EXPECT(race)
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
  (void)ok;
  return verdict("atomic_ref_relaxed", true);
}
