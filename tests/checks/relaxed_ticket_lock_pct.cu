// relaxed_ticket_lock_pct (clean): under the relaxed memory model with the pct scheduler, the
// thread whose ticket is being served must get to run even after it read an old value of the turn
// and was found waiting. A ticket lock (one atomicAdd for a ticket, a volatile load of the turn,
// the section and the hand-over inside the loop, so that lockstep warps finish too), two blocks of
// 16 threads, three sections each. With seed 1, pct found the holder of ticket 65 (block 1)
// waiting on an old turn (64) and ran it last; block 0's sixteen waiters, told once that they
// wait, then kept their places above it for ever: the launch ran until the step budget ran out,
// although memory already held the turn it waited for. Now a lane that goes on waiting is told
// again after each quiet spell (sim/exec/progress.cpp), so every waiter in turn sinks below the
// holder. Every section is counted on the host.
#include <cstdio>

#include "checks.h"

constexpr int kBlocks = 2, kThreads = 16, kRounds = 3;

__global__ void ticket_sections(unsigned* next, unsigned* serving, int* counter) {
  for (int r = 0; r < kRounds; ++r) {
    const unsigned ticket = atomicAdd(next, 1u);
    bool done = false;
    while (!done) {
      if (*(volatile unsigned*)serving == ticket) {
        __threadfence();
        *counter += 1;  // the section: a plain read-modify-write, ordered by the lock alone
        __threadfence();
        *(volatile unsigned*)serving = ticket + 1;
        done = true;
      }
    }
  }
}

int main() {
  unsigned *next, *serving;
  int* counter;
  CHECK(cudaMalloc(&next, sizeof(unsigned)));
  CHECK(cudaMalloc(&serving, sizeof(unsigned)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(next, 0, sizeof(unsigned)));
  CHECK(cudaMemset(serving, 0, sizeof(unsigned)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  ticket_sections<<<kBlocks, kThreads>>>(next, serving, counter);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, counter, sizeof got, cudaMemcpyDeviceToHost));
  const int want = kBlocks * kThreads * kRounds;
  if (got != want) std::printf("counted %d sections, expected %d\n", got, want);
  CHECK(cudaFree(next));
  CHECK(cudaFree(serving));
  CHECK(cudaFree(counter));
  return verdict("relaxed_ticket_lock_pct", got == want);
}
