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
    // TODO(5a): the loop of 1c (write the CAS and the fences here); after a failed attempt sleep
    // with __nanosleep, starting at 32 ns and doubling up to kMaxBackoffNs (about 12 lines)
    *c.counter = *c.counter + 1;
    *c.sections = *c.sections + 1;
  }
}

// ---- 5b ------------------------------------------------------------------------------------------
// Blocks are a multiple of 32 threads, so every warp is full.
__global__ void count_warp_aggregated(Counters c, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    // TODO(5b): once per round and warp, one lane takes the lock and adds 32 (one per lane) in
    // one critical section; the warp's lanes meet again (__syncwarp) before the next round.
    // Only one lane of a warp ever spins: which loop shape does that allow? (about 10 lines)
    *c.counter = *c.counter + 1;
    *c.sections = *c.sections + 1;
  }
}

}  // namespace lab03
