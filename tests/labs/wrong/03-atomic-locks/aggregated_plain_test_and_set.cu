// WRONG SOLUTION (lab 03, task 5b): count_warp_aggregated with lane 0 taking the lock the way a
// first sketch on paper does: wait until the word reads 0, then write 1. The read and the write are
// two steps: lanes 0 of two warps both read 0 and both enter. (The unlock is still atomicExch.)
// WRONG-REPLACES: contention.cu
// WRONG-FAILS: lab03 task5b count_warp_aggregated takes the lock once per warp and round
// WRONG-MESSAGE: race at aggregated_plain_test_and_set\.cu:[0-9]+
// WRONG-MESSAGE: read and then written with plain accesses, and also updated by an atomic at .*aggregated_plain_test_and_set\.cu:[0-9]+
// WRONG-MESSAGE: Make the test and the write one atomic operation: atomicCAS
// WRONG-FIX:       while (*c.lock != 0) {\n      }\n      *c.lock = 1;\n =>       while (atomicCAS(c.lock, 0, 1) != 0) {\n      }\n
//
// Lab 03, task 5: contention. Many threads on one lock spend their time failing atomicCAS on
// one word; two classic remedies are backing off and asking less often.
//
// 5a. count_backoff: count_locked with exponential backoff (__nanosleep) after a failed attempt.
// 5b. count_warp_aggregated: one lane per warp takes the lock and adds the whole warp's count.
#include "lab03_kernels.cuh"

namespace lab03 {

// ---- 5a ------------------------------------------------------------------------------------------
__global__ void count_backoff(Counters c, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    unsigned wait_ns = 32;
    bool done = false;
    while (!done) {
      if (atomicCAS(c.lock, 0, 1) == 0) {
        __threadfence();
        *c.counter = *c.counter + 1;
        *c.sections = *c.sections + 1;
        __threadfence();
        atomicExch(c.lock, 0);
        done = true;
      } else {
        __nanosleep(wait_ns);  // let the holder (and the other waiters) use the memory system
        wait_ns = wait_ns * 2 < kMaxBackoffNs ? wait_ns * 2 : kMaxBackoffNs;
      }
    }
  }
}

// ---- 5b ------------------------------------------------------------------------------------------
// Blocks are a multiple of 32 threads, so every warp is full.
__global__ void count_warp_aggregated(Counters c, int rounds) {
  const int lane = threadIdx.x % 32;
  for (int r = 0; r < rounds; ++r) {
    if (lane == 0) {
      // The only lane of its warp that competes: nothing of its warp waits for it inside the
      // loop, so even the CPU-style loop is safe here under both warp models.
      while (*c.lock != 0) {
      }
      *c.lock = 1;
      __threadfence();
      *c.counter = *c.counter + 32;
      *c.sections = *c.sections + 1;
      __threadfence();
      atomicExch(c.lock, 0);
    }
    __syncwarp();
  }
}

}  // namespace lab03
