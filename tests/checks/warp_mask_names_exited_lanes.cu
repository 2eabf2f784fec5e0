// PENDING (documentation and checker disagree). warp_mask_names_exited_lanes:
//   partial_warp: a block of 48 threads; its second warp has only 16 lanes, and they call
//     __shfl_sync(0xffffffff, ...) naming the 16 lanes that do not exist;
//   after_exit: lanes 16-31 return, then lanes 0-15 call __syncwarp(0xffffffff), naming exited
//     lanes.
// docs/checkers.md, "Warp masks": a .sync warp instruction whose member mask "names lanes that
// have exited or do not exist" is a sync error. Expected by the docs: SyncLab ERROR (sync) at
// both marked lines. Got under its: no report at all: KernelRun::check_member_mask() says "Lanes
// that exited (or never existed) count as arrived, as on hardware". Under lockstep: no report for
// the lanes that do not exist; after_exit is reported, but as "__syncwarp names lanes that are not
// active here ... on another path of a divergent branch" (the returning lanes wait at the
// reconvergence point instead of exiting), under either SYNCLAB_LOCKSTEP_ORDER.
//
// The PTX ISA (bar.warp.sync, shfl.sync, vote.sync, match.sync) only requires the NON-EXITED
// threads of the mask to execute the instruction, so the code's behaviour looks right and the
// docs' sentence wrong; NVIDIA's CUDA guidelines only advise against naming inactive threads.
// One of the two should change (a WARNING would fit the guideline).
//
// Run: synclab-run -- ./warp_mask_names_exited_lanes
#include "../checks.h"

__global__ void partial_warp(int* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(0xffffffffu, t * 3, 0);  // EXPECT(sync)
}

__global__ void after_exit(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  if (lane >= 16) return;
  s[lane] = lane;
  __syncwarp(0xffffffffu);  // EXPECT(sync)
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
