// Regression test (once a missed race). char_neighbour_missing_barrier: every thread writes its own byte of a
// shared char array and then, with no __syncthreads(), reads its right neighbour's byte. Thread
// 31 (warp 0) reads s[32], which thread 32 (warp 1) writes, and thread 63 reads s[0], written by
// thread 0: races between warps, an ERROR under both models.
//
// Expected: SyncLab ERROR (race) naming the two marked lines (under lockstep, where the
// warp-internal pairs are ordered, these cross-warp pairs are the only races).
// Got: no report at all under lockstep (under its only WARNINGs for some pairs inside a warp).
//
// Why: RaceDetector::access() replaces the granule's last write (cell->w) by the new one whatever
// bytes it covers, so after lanes 0-3 of warp 1 write s[32..35] one byte each, the shadow only
// remembers lane 3's write of byte 35; thread 31's read of byte 32 overlaps nothing remembered.
// (Writes also clear r1/r2, the reads of OTHER bytes of the granule.) The docs promise byte
// granularity for exactly this case ("a char array"): neighbouring bytes must not conflict, but
// the same byte still must.
//
// Run: synclab-run --model lockstep -- ./char_neighbour_missing_barrier
#include "checks.h"

constexpr int kThreads = 64;

__global__ void neighbours(char* out) {
  __shared__ char s[kThreads];
  const int t = threadIdx.x;
  s[t] = static_cast<char>(t + 1);  // EXPECT(race)
  out[t] = s[(t + 1) % kThreads];  // EXPECT(race)
}

int main() {
  char* out;
  CHECK(cudaMalloc(&out, kThreads));
  neighbours<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("char_neighbour_missing_barrier", true);
}
