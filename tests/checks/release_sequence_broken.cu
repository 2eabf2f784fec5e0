// release_sequence_broken (race): as release_sequence, but block 1 overwrites the flag with a
// relaxed store(2) instead of a fetch_add. A plain (non-RMW) store ends block 0's release
// sequence: block 2's acquire load (after relaxed loads until it sees 2) reads a value no release
// wrote, synchronizes with nobody, and its read of block 0's value races with the write (ERROR,
// both models).
#include <cuda/atomic>

#include "checks.h"

using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void sequence(int* data, int* flag, int* out) {
  if (threadIdx.x != 0) return;
  device_ref f(*flag);
  if (blockIdx.x == 0) {
    data[0] = 7;  // EXPECT(race)
    f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    while (f.load(cuda::memory_order_relaxed) != 1) {
    }
    f.store(2, cuda::memory_order_relaxed);
  } else {
    while (f.load(cuda::memory_order_relaxed) != 2) {  // relaxed: never synchronizes with block 0
    }
    (void)f.load(cuda::memory_order_acquire);  // reads 2: written by block 1
    out[0] = data[0];  // EXPECT(race)
  }
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  sequence<<<3, 32>>>(data, flag, out);
  CHECK_KERNEL();
  return verdict("release_sequence_broken", true);
}
