// Regression test (once a false alarm). bar_arrive_lost_knowledge: warp 3 writes `data` and releases a shared
// flag (atomic_ref<int, block>::store(release)); in warp 0, lane 0 arrives at named barrier 1
// (`bar.arrive 1, 64`) first, lane 1 acquires the flag, the whole warp meets at __syncwarp(), and
// lanes 1-31 arrive at barrier 1. Warp 2 waits at `bar.sync 1, 64` and reads `data`.
// Causality: warp 3's write -> (release/acquire) lane 1 -> (program order) lane 1's bar.arrive
// -> (barrier) warp 2's read. Ordered: no race.
//
// Expected (--model its): no report; exit 0 and PASS.
// Got: SyncLab ERROR (race): read-after-write race on shared memory between warp 2's read and
// warp 3's write.
//
// Why: RaceDetector::barrier_arrive() skips joining an arriving thread's knowledge when it is the
// same object as the PREVIOUS arriver's current knowledge, assuming that one was joined at its
// arrival. With bar.arrive the previous arriver (lane 0) keeps running; the __syncwarp gave
// lanes 0-31 one new shared clock that includes what lane 1 acquired, so lanes 1-31 see "same as
// lane 0" and their knowledge of warp 3 never reaches the barrier. Comparing against the clock
// the previous arriver had AT ITS ARRIVAL (or remembering the last joined pointer in Bar) fixes it.
//
// Run: synclab-run --model its -- ./bar_arrive_lost_knowledge
#include <cuda/atomic>

#include "checks.h"

using block_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void lost(int* out) {
  __shared__ int data, flag;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  if (t == 0) {
    data = 0;
    flag = 0;
  }
  __syncthreads();
  if (warp == 3) {
    if (lane == 0) {
      data = 42;
      block_ref(flag).store(1, cuda::memory_order_release);
    }
  } else if (warp == 0) {
    if (lane == 0) bar_arrive(1, 64);
    if (lane == 1)
      while (block_ref(flag).load(cuda::memory_order_acquire) == 0) {
      }
    __syncwarp();
    if (lane != 0) bar_arrive(1, 64);
  } else if (warp == 2) {
    const unsigned d = busy(300, t);  // arrive after warp 0
    bar_sync(1, 64);
    out[lane] = data + static_cast<int>(d == 9u);
  }
}

int main() {
  int h[32];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  lost<<<1, 128>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int l = 0; l < 32; ++l) ok = ok && h[l] == 42;
  return verdict("bar_arrive_lost_knowledge", ok);
}
