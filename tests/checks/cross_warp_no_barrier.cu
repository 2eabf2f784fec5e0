// cross_warp_no_barrier (race, both models): warp 1 reads shared memory that warp 0 writes, with
// no __syncthreads() between. A race between warps is an ERROR under its and under lockstep, and
// the report advises __syncthreads().
//   -DFIX  the advice applied: the write, __syncthreads(), then the read; nothing is reported.
#include "checks.h"

constexpr int kThreads = 64;

__global__ void cross(int* out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t < 32) s[t] = 0;
  __syncthreads();  // s[] starts defined
#ifdef FIX
  if (t < 32) s[t] = t + 100;
  __syncthreads();
  if (t >= 32) out[t - 32] = s[63 - t];
#else
  if (t < 32) {
    s[t] = t + 100;  // EXPECT(race)
  } else {
    out[t - 32] = s[63 - t];  // EXPECT(race)
  }
#endif
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  cross<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("cross_warp_no_barrier", true);
}
