// syncwarp_partial_mask (clean): the two halves of a warp work apart, each ordering its own
// 16 lanes with __syncwarp(half mask) between writing and reading shared memory. A lane only
// reads what lanes of its own half wrote. No race under either warp model.
#include "checks.h"

__global__ void halves(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  int r;
  if (lane < 16) {
    s[lane] = lane * 3;
    __syncwarp(0x0000ffffu);
    r = s[lane ^ 1];
  } else {
    s[lane] = lane * 5;
    __syncwarp(0xffff0000u);
    r = s[16 + ((lane + 1) % 16)];
  }
  out[lane] = r;
}

int main() {
  int* out;
  int h[32];
  CHECK(cudaMalloc(&out, sizeof h));
  halves<<<1, 32>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int l = 0; l < 16; ++l) ok = ok && h[l] == (l ^ 1) * 3;
  for (int l = 16; l < 32; ++l) ok = ok && h[l] == (16 + ((l + 1) % 16)) * 5;
  return verdict("syncwarp_partial_mask", ok);
}
