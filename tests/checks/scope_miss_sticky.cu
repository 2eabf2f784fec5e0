// Regression test (once a misleading report). scope_miss_sticky: thread 0 of block 0 waits for a
// flag that block 1 raised after a block-scope fence (__threadfence_block, then a device-scope
// atomicExch): a release that does not reach block 0, so thread 0's read of the flag is a
// synchronization that failed because of its scope. Thread 0 reads nothing block 1 wrote, so
// that part is harmless. Later, inside block 0, thread 0 and thread 32 (warps 0 and 1) both write
// a shared word with no barrier: an ordinary write-write race between warps of ONE block, which
// no scope could have fixed.
//
// Expected: SyncLab ERROR (race): write-write race on shared memory, explained as "nothing
// orders the two accesses".
// Got: "insufficient-scope write-write race on shared memory", explained as "the threads did
// synchronize, at ...:NN, but with block scope ... the two accesses are in blocks 0 and 0".
//
// Why: RaceThread::scope_miss, set by the failed synchronization and never cleared, was copied
// into every later finding of the thread and titled the report. flush_findings() now says
// "insufficient scope" only when the two accesses are in different blocks and the miss was with
// the other access's block.
// (The first version of this program raised the flag with atomicExch_block: that makes the
// flag itself a race, a block-scope atomic against block 0's read, which is reported too.)
//
// Run: synclab-run -- ./scope_miss_sticky
#include "checks.h"

__global__ void sticky(int* flag, int* out) {
  __shared__ int word;
  const int t = threadIdx.x;
  if (t == 0) word = 0;
  __syncthreads();
  if (blockIdx.x == 1) {
    if (t == 0) {
      __threadfence_block();  // block scope: releases nothing to block 0
      atomicExch(flag, 1);
    }
    return;
  }
  if (t == 0) {
    while (*reinterpret_cast<volatile int*>(flag) == 0) {
    }
    word = 1;  // EXPECT(race)
  } else if (t == 32) {
    word = 2;  // EXPECT(race)
  }
  __syncthreads();
  if (t == 0) out[0] = word;
}

int main() {
  int *flag, *out;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  sticky<<<2, 64>>>(flag, out);
  CHECK_KERNEL();
  return verdict("scope_miss_sticky", true);
}
