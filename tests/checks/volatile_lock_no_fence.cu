// volatile_lock_no_fence (race under SYNCLAB_VOLATILE=data, both models): thread 0 of each of four
// blocks takes a spin lock (atomicCAS, released with atomicExch) and adds one to a volatile counter
// inside it, with no fence. Volatile makes every access reach memory, but it orders nothing: the
// lock's atomics hand over without release/acquire, so a block may read the counter before the
// previous holder's store is visible to it. Under the PTX memory model's definition of a data race
// (SYNCLAB_VOLATILE=strong, the default) volatile accesses are strong and nothing is reported;
// under data the report must say that volatile is not synchronization and advise the fences.
//   -DFIX  __threadfence() right after taking the lock and right before releasing it (the advice):
//          nothing is reported under data either.
#include "checks.h"

__device__ int lock_word = 0;
__device__ volatile int counter = 0;

__global__ void count() {
  if (threadIdx.x != 0) return;
  while (atomicCAS(&lock_word, 0, 1) != 0) {
  }
#ifdef FIX
  __threadfence();
#endif
  counter = counter + 1;  // EXPECT(race)
#ifdef FIX
  __threadfence();
#endif
  atomicExch(&lock_word, 0);
}

int main() {
  count<<<4, 32>>>();
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpyFromSymbol(&got, counter, sizeof got));
  return verdict("volatile_lock_no_fence", got == 4);
}
