// warp_mask_live_lanes (clean): the correct twin of warp_mask_names_exited_lanes.cu. The member
// masks name exactly the lanes that run the instruction:
//   partial_warp: a block of 48 threads; the mask of each warp is computed from blockDim.x, so
//     the second warp's lanes pass 0x0000ffff;
//   after_exit: the mask of the lanes that stay is taken with __ballot_sync(0xffffffff, ...)
//     while the whole warp is still there, before lanes 16-31 return.
#include "checks.h"

__device__ unsigned lanes_present() {
  const unsigned first = threadIdx.x & ~31u;  // the warp's first thread
  const unsigned n = blockDim.x - first;
  return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

__global__ void partial_warp(int* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(lanes_present(), t * 3, 0);
}

__global__ void after_exit(int* out) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  const unsigned stay = __ballot_sync(0xffffffffu, lane < 16);
  if (lane >= 16) return;
  s[lane] = lane;
  __syncwarp(stay);
  out[lane] = s[15 - lane];
}

int main() {
  int h[48];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  partial_warp<<<1, 48>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  // Each lane gets the value of its warp's lane 0: thread 0 (0) or thread 32 (96).
  for (int t = 0; t < 48; ++t) ok = ok && h[t] == (t < 32 ? 0 : 96);
  after_exit<<<1, 32>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, 16 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int l = 0; l < 16; ++l) ok = ok && h[l] == 15 - l;
  return verdict("warp_mask_live_lanes", ok);
}
