// Regression test (once a false hang). syncwarp_disjoint_groups_hang: the two halves of a warp
// synchronize separately. Lanes 0-15 (after some work) call __syncwarp(0x0000ffff) and lane 0
// then raises a flag. Lanes 16-30 call __syncwarp(0xffff0000) in one branch; lane 31 first spins
// until the flag is up, then calls __syncwarp(0xffff0000) in another branch (legal since Volta:
// the lanes of a mask may meet at different __syncwarp() calls). The first half's barrier names
// only lanes 0-15, which all arrive: it completes, the flag goes up, lane 31 leaves its loop and
// the second half completes. Correct under independent thread scheduling. The flag is accessed
// with atomics: a volatile flag between lanes of one warp is a warp-level race for the checker
// (docs/checkers.md), which is not what this program tests.
//
// Expected (--model its): no report; exit 0 and PASS.
// Got: SyncLab ERROR (hang): lane 31 spins on the flag "that nothing can change any more".
//
// Why: KernelRun::warp_sync() lumped every lane waiting at ANY bar.warp.sync together with the
// arriving group and completed the instruction only when the member masks of ALL of them were
// satisfied: lanes 16-30 waited for lane 31, so lanes 0-15, whose own mask was complete, were
// held too. Now each group whose mask is complete goes on (complete_warp_syncs), and the race
// checker's warp_sync joins the lanes of one group only.
//
// Run: synclab-run --model its -- ./syncwarp_disjoint_groups_hang
#include "checks.h"

__global__ void halves(int* out, int delay) {
  __shared__ int flag;
  const int lane = threadIdx.x;
  if (lane == 0) flag = 0;
  __syncwarp();
  unsigned d = 0;
  if (lane < 16) {
    d = busy(delay, lane);  // the other half reaches its barrier first
    __syncwarp(0x0000ffffu);
    if (lane == 0) atomicExch(&flag, 1);
  } else if (lane < 31) {
    __syncwarp(0xffff0000u);
  } else {
    while (atomicAdd(&flag, 0) == 0) {
    }
    __syncwarp(0xffff0000u);
  }
  out[lane] = lane + static_cast<int>(d == 7u);
}

int main() {
  int h[32];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  halves<<<1, 32>>>(out, 100);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int l = 0; l < 32; ++l) ok = ok && h[l] == l;
  return verdict("syncwarp_disjoint_groups_hang", ok);
}
