// Regression test (once docs and checker disagreed). warp_mask_names_exited_lanes:
//   partial_warp: a block of 48 threads; its second warp has only 16 lanes, and they call
//     __shfl_sync(0xffffffff, ..., 0) naming the 16 lanes that do not exist (and reading lane 0,
//     which does);
//   after_exit: lanes 16-31 return, then lanes 0-15 call __syncwarp(0xffffffff), naming exited
//     lanes.
// CUDA requires only the non-exited lanes named in the mask to execute the instruction, and the
// PTX ISA lets it complete without the others, so both kernels are correct: no report, under both
// models (docs/checkers.md, "Warp masks"). Under lockstep this also checks that the returning
// lanes exit instead of waiting at the reconvergence point (see early_return_then_syncthreads.cu).
// warp_mask_live_lanes.cu builds its masks from the live lanes instead.
//
// Expected: no report; exit 0 and PASS.
//
// Run: synclab-run -- ./warp_mask_names_exited_lanes
#include "checks.h"

__global__ void partial_warp(int* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(0xffffffffu, t * 3, 0);
}

__global__ void after_exit(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  if (lane >= 16) return;
  s[lane] = lane;
  __syncwarp(0xffffffffu);
  out[lane] = s[15 - lane];
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 48 * sizeof(int)));
  partial_warp<<<1, 48>>>(out);
  CHECK_KERNEL();
  after_exit<<<1, 32>>>(out);
  CHECK_KERNEL();
  return verdict("warp_mask_names_exited_lanes", true);
}
