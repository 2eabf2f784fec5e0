// atomic_ref_block_scope (race, insufficient scope): message passing between two blocks with
// cuda::atomic_ref<int, cuda::thread_scope_block>: a release store and an acquire load at block
// (.cta) scope. Their ordering only holds between threads of one block; block 1 is outside the
// scope of block 0's release, so its reads of the buffer race with block 0's writes. The report
// must call it a race of insufficient scope.
#include <cuda/atomic>

#include "checks.h"

constexpr int kThreads = 32;
using block_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void mp(int* data, int* flag, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;  // EXPECT(race)
    __syncwarp();
    // The flag's own accesses race too: block-scope atomics of two blocks are not atomic
    // towards each other.
    if (t == 0) block_ref(*flag).store(1, cuda::memory_order_release);  // EXPECT(race)
  } else {
    if (t == 0)
      while (block_ref(*flag).load(cuda::memory_order_acquire) == 0) {
      }
    __syncwarp();
    out[t] = data[kThreads - 1 - t];  // EXPECT(race)
  }
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&out, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  mp<<<2, kThreads>>>(data, flag, out);
  CHECK_KERNEL();
  return verdict("atomic_ref_block_scope", true);
}
