// Regression test (once a false alarm). warp_fence_flag_shared: message passing between two lanes
// of ONE warp through shared memory with a volatile flag and __threadfence_block() on both sides
// (writer: message, fence, flag = 1; reader: spin on the flag, fence, read the message). Volatile
// accesses are strong (relaxed, system scope), the fences make release and acquire patterns at
// block scope: correct under independent thread scheduling. docs/checkers.md: "Flags and locks
// between lanes (Peterson) use fences and stay silent."
//
// Expected (--model its): no report; exit 0 and PASS.
// Got: SyncLab WARNING (race): warp-level read-after-write race on shared memory, between the
// reader's volatile load of the flag and the writer's volatile store.
//
// Why: the volatile exemption in RaceDetector::check() looked only at `t.fenced` of the thread
// making the CURRENT access. The reader fences after its spin (the acquire side), so its loads of
// the flag were checked like a warp-synchronous data exchange. A volatile write that is the
// writer's first memory access after a fence (a release) now exempts the reads of it too; if the
// reader then skipped its fence, the race would show on the message, which is plain data.
//
// Run: synclab-run --model its -- ./warp_fence_flag_shared
#include "checks.h"

__global__ void mp(int* out) {
  __shared__ int message;
  __shared__ volatile int flag;
  const int lane = threadIdx.x;
  if (lane == 0) {
    message = 0;
    flag = 0;
  }
  __syncwarp();
  if (lane == 0) {
    message = 42;
    __threadfence_block();
    flag = 1;
  } else if (lane == 1) {
    while (flag == 0) {
    }
    __threadfence_block();
    out[0] = message;
  }
}

int main() {
  int* out;
  int h = 0;
  CHECK(cudaMalloc(&out, sizeof(int)));
  mp<<<1, 32>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
  return verdict("warp_fence_flag_shared", h == 42);
}
