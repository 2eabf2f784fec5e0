// Regression test (once a false alarm). bytes_later_write_same_word: thread 0 writes byte 0 of a char array,
// __syncthreads(), then writes byte 1 (same 4-byte word). Thread 32 (warp 1) reads byte 0 after
// the barrier. Its read is ordered after the write of byte 0 by the barrier, and the later write
// touches another byte: no race.
//
// Expected: no report; exit 0 and PASS.
// Got: SyncLab ERROR (race): read-after-write race on global memory, "races with: write by block
// 0 thread 0 ... at bytes_later_write_same_word.cu:<line of the byte-1 write>" (the byte it reads
// was written on the line before the barrier).
//
// Why: RaceDetector::access() merges a thread's new write with its previous write to the same
// granule (`if (cell->w.gid1 == cur.gid1) cur.mask |= cell->w.mask`) and stores the merged
// record with the NEW clock and barrier phase. Byte 0 now looks written after the barrier. The
// same happens to reads (r1: `cur.mask |= cell->r1.mask`). Merging is only sound when the older
// access is ordered before everything the newer one is (same clock and phase); otherwise keep the
// older bytes with their own epoch (or do not merge).
//
// Run: synclab-run -- ./bytes_later_write_same_word
#include "checks.h"

__global__ void later_write(char* g, char* out, int delay) {
  const int t = threadIdx.x;
  if (t == 0) g[0] = 1;
  __syncthreads();
  if (t == 0) g[1] = 2;  // another byte of the same word, after the barrier
  if (t == 32) {
    const unsigned d = busy(delay, t);  // read after thread 0's second write
    out[0] = g[d == 3u ? 2 : 0];  // reads byte 0
  }
}

int main() {
  char *g, *out;
  char h = 0;
  CHECK(cudaMalloc(&g, 4));
  CHECK(cudaMalloc(&out, 1));
  CHECK(cudaMemset(g, 0, 4));
  later_write<<<1, 64>>>(g, out, 200);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(&h, out, 1, cudaMemcpyDeviceToHost));
  return verdict("bytes_later_write_same_word", h == 1);
}
