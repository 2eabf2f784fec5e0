// release_sequence_broken (race): as release_sequence, but block 1 overwrites the flag with a
// relaxed store(2) instead of a fetch_add, then raises a second flag. A plain (non-RMW) store ends
// block 0's release sequence: block 2 waits for the second flag (so it never reads block 0's 1 of
// the first, which an acquire of the same flag would then take: an acquire pattern), and its
// acquire load of the first flag reads 2, a value no release wrote. It synchronizes with nobody,
// and its read of block 0's value races with the write (ERROR, both models).
#include <cuda/atomic>

#include "checks.h"

using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void sequence(int* data, int* flag, int* out) {
  if (threadIdx.x != 0) return;
  device_ref f(flag[0]), g(flag[1]);
  if (blockIdx.x == 0) {
    data[0] = 7;  // EXPECT(race)
    f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    while (f.load(cuda::memory_order_relaxed) != 1) {
    }
    f.store(2, cuda::memory_order_relaxed);
    g.store(1, cuda::memory_order_relaxed);
  } else {
    while (g.load(cuda::memory_order_relaxed) != 1) {  // relaxed, and not of f: orders nothing
    }
    (void)f.load(cuda::memory_order_acquire);  // reads 2: written by block 1
    out[0] = data[0];  // EXPECT(race)
  }
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&flag, 2 * sizeof(int)));
  CHECK(cudaMemset(flag, 0, 2 * sizeof(int)));
  sequence<<<3, 32>>>(data, flag, out);
  CHECK_KERNEL();
  return verdict("release_sequence_broken", true);
}
