// named_barrier_outsider (race): warps 0-1 exchange values through shared memory with
// `bar.sync 1, 64`, which orders those 64 threads only. Warp 2 takes no part in barrier 1 but
// reads what warp 0 wrote: nothing orders its read after warp 0's write. Race between warps
// (ERROR) under both warp models, on the two marked lines.
#include "checks.h"

constexpr int kThreads = 96;

__global__ void outsider(int* out) {
  __shared__ int a[64];
  const int t = threadIdx.x;
  if (t < 64) a[t] = 0;
  __syncthreads();  // a[] starts defined
  if (t < 64) {
    a[t] = t * 3;  // EXPECT(race)
    bar_sync(1, 64);
    out[t] = a[63 - t];
  } else {
    const unsigned d = busy(200, t);  // let warp 0 write first
    out[t] = a[t - 64] + (d == 1u);  // EXPECT(race)
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, kThreads * sizeof(int)));
  outsider<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  return verdict("named_barrier_outsider", true);
}
