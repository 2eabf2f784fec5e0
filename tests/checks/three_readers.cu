// three_readers: lane 0 of warps 0, 1 and 2 read a shared word (volatile loads, so that the
// compiler keeps one load per reader; a volatile read still races with a plain write), in that
// order; warps 1, 2 and 3 then meet at `bar.sync 1, 96`, and warp 3 overwrites the word. Warp 0
// takes no part in barrier 1: its read and warp 3's write are unordered, a write-after-read race
// between warps (ERROR, both models).
//
// A regression: shadow memory kept the last reads of only two threads per granule, so warp 0's
// read was pushed out by the reads of warps 1 and 2 (concurrent with it, not ordered after it)
// and the race went unreported. A read that pushes out a reader not ordered before it now keeps
// that reader in the cell's read set (docs/checkers.md).
//
// With -DFIX every warp takes part in the barrier (bar.sync 1, 128): all three reads are ordered
// before the write, and nothing may be reported.
//
// Run: synclab-run -- ./three_readers
#include "checks.h"

constexpr int kThreads = 128;

__global__ void readers(int* out) {
  __shared__ int x;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (t == 0) x = 1;
  __syncthreads();
  volatile int* vx = &x;  // volatile: one load per reader, not one hoisted load for all threads
  int v = 0;
  if (lane == 0 && warp == 0) v = *vx;  // EXPECT(race)
  if (lane == 0 && (warp == 1 || warp == 2)) v = static_cast<int>(busy(50, t) == 7u) + *vx;
#ifdef FIX
  bar_sync(1, kThreads);
#else
  if (warp >= 1) bar_sync(1, 96);
#endif
  if (lane == 0 && warp == 3) x = 5;  // EXPECT(race)
  out[t] = v;
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, kThreads * sizeof(int)));
  readers<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("three_readers", true);
}
