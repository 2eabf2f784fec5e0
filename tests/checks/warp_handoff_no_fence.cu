// warp_handoff_no_fence (race under its only): every lane of one warp takes a spin lock the
// Volta-safe way (critical section and unlock inside the loop) and adds one to a global total,
// but nothing orders the critical sections: there is no fence between the update and the unlock,
// nor after taking the lock. Under its the lanes hand the lock to each other and their updates
// are unordered: a warp-level race whose fix is release/acquire ordering of the hand-over (the
// report must say fences, not __syncwarp, which cannot be reached by all lanes inside the loop).
// Under lockstep the warp's lanes run the loop body one after another in one instruction stream.
//   -DFIX           __threadfence() after taking the lock and before the unlock: nothing is
//                   reported.
//   -DACQUIRE_ONLY  only the fence after taking the lock: still a race, and the report must name
//                   the missing release (the fence before the unlock).
#include "checks.h"

__device__ int lock_word = 0;

__global__ void add_all(int* total) {
  bool done = false;
  while (!done) {
    if (atomicCAS(&lock_word, 0, 1) == 0) {
#if defined(FIX) || defined(ACQUIRE_ONLY)
      __threadfence();
#endif
      *total = *total + 1;  // EXPECT(race)
#ifdef FIX
      __threadfence();
#endif
      atomicExch(&lock_word, 0);
      done = true;
    }
  }
}

int main() {
  int* total;
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  add_all<<<1, 32>>>(total);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("warp_handoff_no_fence", got == 32);
}
