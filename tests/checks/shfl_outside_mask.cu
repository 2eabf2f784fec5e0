// shfl_outside_mask (sync, both models): the tail of a reduction where only the first 20 lanes of
// the last warp hold data; they shuffle among themselves with the mask of those lanes, so lanes
// 4-19 of the first step read lanes 20-35 (20-31 outside the mask, 32-35 past the warp: no read).
// CUDA leaves those values undefined; the simulator gives the reading lane its own value and the
// sync checker reports the read as an ERROR.
//   -DFIX  the report's advice applied: the whole warp takes part, lanes without data shuffling 0;
//          nothing is reported and the sum is right.
#include "checks.h"

constexpr int kValid = 20;

__global__ void tail_sum(const int* in, int* out) {
  const int lane = threadIdx.x;
#ifdef FIX
  int v = lane < kValid ? in[lane] : 0;
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if (lane == 0) *out = v;
#else
  const unsigned mask = __ballot_sync(0xffffffffu, lane < kValid);
  if (lane < kValid) {
    int v = in[lane];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(mask, v, off);  // EXPECT(sync)
    if (lane == 0) *out = v;
  }
#endif
}

int main() {
  int h[kValid], want = 0;
  for (int i = 0; i < kValid; ++i) want += (h[i] = 3 * i + 1);
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  tail_sum<<<1, 32>>>(in, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  std::printf("sum %d (expected %d)\n", got, want);
#ifdef FIX
  return verdict("shfl_outside_mask", got == want);
#else
  return verdict("shfl_outside_mask", true);  // the value is undefined: the report is the finding
#endif
}
