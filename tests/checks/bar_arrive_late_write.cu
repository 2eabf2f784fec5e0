// bar_arrive_late_write (race): the producer warp signals "slot full" with `bar.arrive 2, 64`
// BEFORE it writes the slot. bar.arrive orders only the accesses made before it; the write
// after it is not ordered before the consumer's read after `bar.sync 2, 64`. Race between warps
// (ERROR), both models.
#include "checks.h"

constexpr int kThreads = 64;  // warp 0: producer, warp 1: consumer

__global__ void late_write(const int* in, int* out) {
  __shared__ int slot[32];
  const int t = threadIdx.x, lane = t % 32;
  if (t < 32) slot[lane] = 0;
  __syncthreads();  // the slot starts defined
  if (t < 32) {
    bar_arrive(2, 64);
    slot[lane] = in[lane] + 1;  // EXPECT(race)
  } else {
    bar_sync(2, 64);
    out[lane] = slot[31 - lane];  // EXPECT(race)
  }
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  late_write<<<1, kThreads>>>(in, out);
  CHECK_KERNEL();
  return verdict("bar_arrive_late_write", true);
}
