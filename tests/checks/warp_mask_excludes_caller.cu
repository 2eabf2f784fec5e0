// warp_mask_excludes_caller (sync): every lane of the warp calls __syncwarp(0x0000ffff) and,
// in a second kernel, __shfl_sync(0x0000ffff, ...): lanes 16-31 pass a member mask that leaves
// out their own lane. Each calling lane must be named in the mask (sync ERROR, both models).
#include "checks.h"

__global__ void syncwarp_mask(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = lane;
  __syncwarp(0x0000ffffu);  // EXPECT(sync)
  out[lane] = s[lane];
}

__global__ void shfl_mask(int* out) {
  const int lane = threadIdx.x;
  out[lane] = __shfl_sync(0x0000ffffu, lane * 2, 0);  // EXPECT(sync)
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  syncwarp_mask<<<1, 32>>>(out);
  CHECK_KERNEL();
  shfl_mask<<<1, 32>>>(out);
  CHECK_KERNEL();
  return verdict("warp_mask_excludes_caller", true);
}
