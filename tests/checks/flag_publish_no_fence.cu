// flag_publish_no_fence (race under both models): block 0 writes a value and raises a flag with
// atomicExch; block 1 waits for the flag with atomicAdd(&flag, 0) and reads the value. The atomics
// hand over, but without release/acquire ordering: the reader may see the flag before the value.
// The report must advise fences on both sides of the hand-over.
//   -DFIX           __threadfence() before raising the flag and after seeing it: nothing is
//                   reported.
//   -DRELEASE_ONLY  only the writer's fence (a release): still a race, and the report must say
//                   that the reader did not acquire (the fence after seeing the flag).
//   -DBLOCK_RELEASE the writer fences with __threadfence_block() and the reader not at all: an
//                   insufficient-scope race, and the report must name both what is missing (the
//                   device scope and the reader's acquire); RELEASE_ONLY is that scope fixed alone.
#include "checks.h"

__device__ int flag = 0;

__global__ void publish(int* data, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *data = 42;  // EXPECT(race)
#if defined(FIX) || defined(RELEASE_ONLY)
    __threadfence();
#elif defined(BLOCK_RELEASE)
    __threadfence_block();
#endif
    atomicExch(&flag, 1);
  } else {
    while (atomicAdd(&flag, 0) == 0) {
    }
#ifdef FIX
    __threadfence();
#endif
    *out = *data;  // EXPECT(race)
  }
}

int main() {
  int *data, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  publish<<<2, 32>>>(data, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("flag_publish_no_fence", got == 42);
}
