// block_scope_flag_load (race, insufficient scope): block 0 raises a flag with a device-scope
// atomic store; block 1 waits for it with a block-scope atomic load (cuda::atomic_ref<int,
// cuda::thread_scope_block>). A block-scope access is atomic, and synchronizes, only with threads of
// its own block, so the load and the store race although both are atomic, and the report must say
// that the block scope is why (not ask for fences: both sides are seq_cst).
//   -DFIX: the load at device scope, as the advice says: silent.
#include <cuda/atomic>

#include "checks.h"

#ifdef FIX
using waiter_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;
#else
using waiter_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;
#endif

__global__ void raise_and_wait(int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1);  // EXPECT(race)
  } else {
    while (waiter_ref(*flag).load() == 0) {  // EXPECT(race)
    }
    *out = 1;
  }
}

int main() {
  int* flag;
  int* out;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  raise_and_wait<<<2, 32>>>(flag, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("block_scope_flag_load", got == 1);
}
