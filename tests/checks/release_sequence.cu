// release_sequence (clean): block 0 writes a value and releases a flag (store 1, release).
// Block 1 waits for 1 with relaxed loads and increments the flag with a relaxed fetch_add: a
// read-modify-write continues the release sequence headed by block 0's store. Block 2 waits for
// 2 with relaxed loads (which order nothing, even when they read block 0's 1), then does one
// acquire load. That load reads 2, a value of the release sequence headed by block 0's store, so
// it synchronizes with block 0 and block 2 may read block 0's value. No race.
#include <cuda/atomic>

#include "checks.h"

using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void sequence(int* data, int* flag, int* out) {
  if (threadIdx.x != 0) return;
  device_ref f(*flag);
  if (blockIdx.x == 0) {
    data[0] = 7;
    f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    while (f.load(cuda::memory_order_relaxed) != 1) {
    }
    f.fetch_add(1, cuda::memory_order_relaxed);
  } else {
    while (f.load(cuda::memory_order_relaxed) != 2) {
    }
    (void)f.load(cuda::memory_order_acquire);  // reads 2: written by block 1
    out[0] = data[0];
  }
}

int main() {
  int *data, *flag, *out;
  int h = 0;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  sequence<<<3, 32>>>(data, flag, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
  return verdict("release_sequence", h == 7);
}
