// Regression test (once a false alarm). warp_release_acquire_shared: message passing between two lanes of ONE
// warp through shared memory, done right for independent thread scheduling: lane 0 writes the
// message and releases a flag with cuda::atomic_ref<int, thread_scope_block>::store(release)
// (st.release.cta); lane 1 spins on load(acquire) (ld.acquire.cta) and then reads the message.
// Release/acquire at block scope orders the two lanes; the flag accesses are strong and morally
// strong (same block), so they do not race either. Correct under the PTX memory model.
//
// Expected (--model its): no report; exit 0 and PASS.
// Got: SyncLab WARNING (race): warp-level ... race on shared memory, on the flag (the store and
// the spinning load).
//
// Why: RaceDetector::check() lets two strong accesses of one warp race under its when they are
// on shared memory and the CURRENT thread has never executed a fence (t.fenced), meant for the
// volatile warp-synchronous idiom. st.release / ld.acquire are not fences, so the flag accesses
// fall through to known(); and known() runs in access(), BEFORE strong_read() lets the spinning
// lane acquire the release it is reading. An explicit release/acquire pair should be exempt like
// atomics are (or the exemption keyed on .release/.acquire, not on a past fence).
//
// Run: synclab-run --model its -- ./warp_release_acquire_shared
#include <cuda/atomic>

#include "checks.h"

using block_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void mp(int* out) {
  __shared__ int message, flag;
  const int lane = threadIdx.x;
  if (lane == 0) {
    message = 0;
    flag = 0;
  }
  __syncwarp();
  if (lane == 0) {
    message = 42;
    block_ref(flag).store(1, cuda::memory_order_release);
  } else if (lane == 1) {
    while (block_ref(flag).load(cuda::memory_order_acquire) == 0) {
    }
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
  return verdict("warp_release_acquire_shared", h == 42);
}
