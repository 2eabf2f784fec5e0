// PENDING (missed race). three_readers: lane 0 of warps 0, 1 and 2 read a shared word (volatile
// loads, so that the compiler keeps one load per reader; a volatile read still races with a
// plain write), in that order; warps
// 1, 2 and 3 then meet at `bar.sync 1, 96`, and warp 3 overwrites the word. Warp 0 takes no part
// in barrier 1: its read and warp 3's write are unordered, a write-after-read race between
// warps (ERROR, both models).
//
// Expected: SyncLab ERROR (race) naming the two marked lines.
// Got: no report.
//
// Why: shadow memory keeps the last reads of only two threads per granule (r1, r2). Warp 0's
// read is pushed out by the reads of warps 1 and 2, which are NOT ordered after it (all three
// are concurrent reads); then warp 3's write is checked against warps 1 and 2 only, which the
// barrier orders. docs/checkers.md says keeping only the last accesses "can miss a race whose
// first access was overwritten by an ordered one in between"; here the reads in between are not
// ordered with the first. FastTrack keeps a full read vector once reads are concurrent
// ("read-shared"); with a cap of two, three concurrent readers are enough to lose a race.
//
// Run: synclab-run -- ./three_readers
#include "../checks.h"

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
  if (warp >= 1) bar_sync(1, 96);
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
