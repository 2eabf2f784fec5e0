// PENDING (misleading report). scope_miss_sticky: thread 0 of block 0 waits for a flag that
// block 1 raised with block-scope synchronization (__threadfence_block + atomicExch_block), and
// reads nothing block 1 wrote, so that part is harmless. Later, inside block 0, thread 0 and
// thread 32 (warps 0 and 1) both write a shared word with no barrier: an ordinary write-write
// race between warps of ONE block, which no scope could have fixed.
//
// Expected: SyncLab ERROR (race): write-write race on shared memory, explained as "nothing
// orders the two accesses".
// Got: "insufficient-scope write-write race on shared memory", explained as "the threads did
// synchronize, at ...:NN (atom), but with block scope ... the two accesses are in blocks 0 and 0;
// use device scope".
//
// Why: RaceThread::scope_miss is set by any synchronization that did not count because of its
// scope (strong_read, fence) and is never cleared; RaceDetector::check() copies it into every
// later finding of that thread, and flush_findings() titles the report "insufficient-scope"
// whenever it is set, without checking that the miss was on the path between the two accesses
// (or even that they are in different blocks).
//
// Run: synclab-run -- ./scope_miss_sticky
#include "../checks.h"

__global__ void sticky(int* flag, int* out) {
  __shared__ int word;
  const int t = threadIdx.x;
  if (t == 0) word = 0;
  __syncthreads();
  if (blockIdx.x == 1) {
    if (t == 0) {
      __threadfence_block();
      atomicExch_block(flag, 1);
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
