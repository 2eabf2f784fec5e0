// unfinished_launch (race, both models): the program launches a racy kernel and returns from main
// without waiting for it. The launch is named in a WARNING (unfinished) that says to wait for it,
// and the kernel still runs before the process ends, so its race is reported.
//   -DSYNC  the advice applied: cudaDeviceSynchronize() after the launch; the race is reported as
//           before, and the WARNING (unfinished) is gone.
#include "checks.h"

constexpr int kThreads = 64;

__global__ void left_running(int* out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  if (t < 32) s[t] = 0;
  __syncthreads();  // s[] starts defined
  if (t < 32) {
    s[t] = t + 100;  // EXPECT(race)
  } else {
    out[t - 32] = s[63 - t];  // EXPECT(race)
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  left_running<<<1, kThreads>>>(out);
  CHECK(cudaGetLastError());
#ifdef SYNC
  CHECK(cudaDeviceSynchronize());
#endif
  return 0;
}
