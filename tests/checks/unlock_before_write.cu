// unlock_before_write (regression: advice that did not fix the bug). Lock bits packed in one word,
// as lab 09's emulated lock table: thread 0 holds bit 0 and thread 1 bit 1; each releases its bit
// (a fence, then an atomicAnd) and thread 32 (another warp) waits for bit 0 to clear, fences, and
// reads what thread 0 wrote. Thread 0 writes its data AFTER its unlock: a read-after-write race.
// Expected: the race, with advice to move the write before the release (write, then unlock);
// -DFIX does that and must stay silent. The report used to ask for a __threadfence() before the
// unlock, which is already there, and named the word's last writer, thread 1, as the hand-over.
#include "checks.h"

__device__ unsigned bits = 3u;  // bit t: thread t holds its lock
__device__ int data = 0;

__global__ void hand_over(int* out) {
  const int t = int(threadIdx.x);
  if (t == 0) {
#ifdef FIX
    data = 42;
#endif
    __threadfence();
    atomicAnd(&bits, ~1u);
#ifndef FIX
    data = 42;  // EXPECT(race)
#endif
  } else if (t == 1) {
    __threadfence();
    atomicAnd(&bits, ~2u);
  } else if (t == 32) {
    while (atomicOr(&bits, 0u) & 1u) {
    }
    __threadfence();
    *out = data;  // EXPECT(race)
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  hand_over<<<1, 64>>>(out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  return verdict("unlock_before_write", got == 42);
}
