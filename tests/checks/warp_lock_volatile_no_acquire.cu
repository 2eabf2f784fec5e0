// warp_lock_volatile_no_acquire: the 32 lanes of one warp add to a counter under a spin lock
// (atomicCAS to take it; __threadfence() and atomicExch to release it), reading and writing the
// counter through volatile. The lock is taken without the fence after the winning CAS (the
// acquire), so under independent thread scheduling a lane may read the counter before the
// previous holder's update is visible to it: a warp-level race (a WARNING) on the counter. The
// report must give the lock's advice (a fence right after the lock is taken), not the advice for
// a warp-synchronous exchange through volatile memory (__syncwarp() between steps, or shuffles),
// which would not fix a lock. -DFIX adds the fence, and then nothing is reported.
#include "checks.h"

__device__ int lock = 0;
__device__ int counter = 0;

__global__ void add_under_lock(int* out) {
  volatile int* c = &counter;
  bool done = false;
  while (!done) {
    if (atomicCAS(&lock, 0, 1) == 0) {
#ifdef FIX
      __threadfence();
#endif
      *c = *c + 1;  // EXPECT(race)
      __threadfence();
      atomicExch(&lock, 0);
      done = true;
    }
  }
  __syncwarp();
  if (threadIdx.x == 0) *out = *c;
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  add_under_lock<<<1, 32>>>(out);
  CHECK_KERNEL();
  int n = 0;
  CHECK(cudaMemcpy(&n, out, sizeof n, cudaMemcpyDeviceToHost));
  if (n != 32) printf("counter %d, expected 32\n", n);
  return verdict("warp_lock_volatile_no_acquire", true);
}
