// syncwarp_partial_outsider (race under its): lanes 0-15 write shared memory and synchronize
// with __syncwarp(0x0000ffff); lanes 16-31 synchronize among themselves with
// __syncwarp(0xffff0000) and then read what lanes 0-15 wrote. Neither barrier names both the
// writer and the reader: under independent thread scheduling this is a warp-level race
// (WARNING). Under lockstep the warp's single program counter orders it: no report.
#include "checks.h"

__global__ void outsider(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = 0;
  __syncwarp();  // s[] starts defined
  if (lane < 16) {
    s[lane] = lane * 3;  // EXPECT(race)
    __syncwarp(0x0000ffffu);
    out[lane] = s[lane ^ 1];
  } else {
    __syncwarp(0xffff0000u);
    out[lane] = s[lane - 16] * 2 - 1;  // EXPECT(race)
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  outsider<<<1, 32>>>(out);
  CHECK_KERNEL();
  return verdict("syncwarp_partial_outsider", true);
}
