// lock_traffic_hang (hang under both models): two threads of different blocks each wait for work
// under a spin lock: take the lock, look at `ready`, release it, and loop. The producer is picked
// by a block index the grid does not have, so nobody ever raises `ready`. Every pass of the loop
// writes memory (the lock taken and given back) but changes nothing for good: the waiters hang,
// and the report must say so rather than let the run go on for ever.
//   -DFIX  the producer is block 2, which exists: it raises `ready` under the lock, the waiters
//          leave, nothing is reported.
#include "checks.h"

constexpr unsigned kBlocks = 3;

__device__ void lock(int* l) {
  while (atomicCAS(l, 0, 1) != 0) {  // EXPECT(hang)
  }
  __threadfence();
}

__device__ void unlock(int* l) {
  __threadfence();
  atomicExch(l, 0);
}

__global__ void wait_under_lock(int* l, int* ready, int* out) {
  if (threadIdx.x != 0) return;
#ifdef FIX
  const unsigned producer = 2;
#else
  const unsigned producer = kBlocks;  // one past the last block
#endif
  if (blockIdx.x == producer) {
    lock(l);
    *ready = 1;
    unlock(l);
    return;
  }
  if (blockIdx.x >= 2) return;
  for (;;) {
    lock(l);
    const int r = *ready;
    unlock(l);
    if (r) break;
  }
  out[blockIdx.x] = 1;
}

int main() {
  int *l, *ready, *out;
  CHECK(cudaMalloc(&l, sizeof(int)));
  CHECK(cudaMalloc(&ready, sizeof(int)));
  CHECK(cudaMalloc(&out, 2 * sizeof(int)));
  CHECK(cudaMemset(l, 0, sizeof(int)));
  CHECK(cudaMemset(ready, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, 2 * sizeof(int)));
  wait_under_lock<<<kBlocks, 32>>>(l, ready, out);
  CHECK_KERNEL();
  int got[2] = {0, 0};
  CHECK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  return verdict("lock_traffic_hang", got[0] == 1 && got[1] == 1);
}
