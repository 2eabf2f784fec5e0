// Regression test (once a missed warp-level race). syncwarp_two_masks_one_pc: every lane of a
// warp writes its word of shared memory and calls ONE __syncwarp() instruction with a mask that
// depends on its half: lanes 0-15 pass 0x0000ffff, lanes 16-31 pass 0xffff0000. These are two
// separate barriers, each ordering its own 16 lanes only. Each lane then reads the word of a lane
// in the OTHER half: nothing orders that read after the write, a warp-level race under
// independent thread scheduling.
//
// Expected (--model its): SyncLab WARNING (race) naming the marked lines. (The simulator
// completes each group whose mask is complete on its own and joins the clocks of that group only.)
//
// Run: synclab-run --model its -- ./syncwarp_two_masks_one_pc
#include "checks.h"

__global__ void two_masks(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = lane * 7;  // EXPECT(race)
  __syncwarp(lane < 16 ? 0x0000ffffu : 0xffff0000u);
  out[lane] = s[lane ^ 16];  // EXPECT(race)
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  two_masks<<<1, 32>>>(out);
  CHECK_KERNEL();
  return verdict("syncwarp_two_masks_one_pc", true);
}
