// atomic_failed_cas_no_release (race): the racy twin of atomic_unchanged_release.cu. Thread 0
// of block 0 writes data and fences (a release fence), but its atomic on the flag is a
// compare-and-swap that fails (it expects 1, the flag is 0): a failed CAS writes nothing, it is a
// pure read, so the fence is followed by no write and nothing is released. Thread 32's relaxed
// atomicAdd then sets the flag to 1 without a release of its own. Block 1 waits for the 1 and
// fences (an acquire fence), but synchronizes with nobody: its read of the data races with thread
// 0's write. (With __threadfence() on both sides, fence.sc, Fence-SC order would order the two
// fences and there would be no race: the reader's fence cannot come first, since block 1 read a
// write that thread 0's fence is before, through the barrier.)
#include <cuda/atomic>

#include "checks.h"

__global__ void publish(int* data, int* flag, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    if (t == 0) {
      data[0] = 42;  // EXPECT(race)
      cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
      atomicCAS(flag, 1, 2);  // fails: the flag is 0
    }
    __syncthreads();
    if (t == 32) atomicAdd(flag, 1);
  } else if (t == 0) {
    while (*reinterpret_cast<volatile int*>(flag) == 0) {
    }
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    out[0] = data[0];  // EXPECT(race)
  }
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  publish<<<2, 64>>>(data, flag, out);
  CHECK_KERNEL();
  int f = 0;
  CHECK(cudaMemcpy(&f, flag, sizeof f, cudaMemcpyDeviceToHost));
  return verdict("atomic_failed_cas_no_release", f == 1);
}
