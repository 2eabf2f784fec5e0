// inlined_lock_deadlock (deadlock under lockstep): the naive spin lock of lab 03 written with a
// helper, `while (!try_lock(l));`, taken by every lane of one warp. The compiler inlines try_lock,
// so the spinning instructions carry try_lock's lines; the report must also name the line of the
// loop that calls it (the student's loop), through the PTX's inlined_at chain. Under its the lock
// is handed from lane to lane and the kernel completes.
// tests/checks/CMakeLists.txt names the loop's line (27): keep it there.
#include "checks.h"

__device__ __noinline__ void leave(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

__device__ __forceinline__ bool try_lock(int* lock) {
  const bool got = atomicCAS(lock, 0, 1) == 0;  // EXPECT(deadlock)
  __threadfence();                               // EXPECT(deadlock)
  return got;
}

__global__ void count(int* lock, int* total) {
  // When lanes of one warp spin here before Volta, the winner waits where the warp
  // reconverges and never reaches the unlock below.
  while (!try_lock(lock)) {
  }
  *total = *total + 1;
  leave(lock);
}

int main() {
  int *lock, *total;
  CHECK(cudaMalloc(&lock, sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMemset(lock, 0, sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  count<<<1, 32>>>(lock, total);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("inlined_lock_deadlock", got == 32);
}
