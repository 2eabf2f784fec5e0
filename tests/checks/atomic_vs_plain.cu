// atomic_vs_plain (race): block 0 increments a counter with atomicAdd while block 1 reads it with
// a plain load, with nothing ordering the two: an atomic does not protect a plain access of
// another thread. ERROR, both models.
#include "checks.h"

__global__ void mixed(int* counter, int* out) {
  const int t = threadIdx.x;
  if (blockIdx.x == 0) {
    atomicAdd(counter, 1);  // EXPECT(race)
  } else {
    const unsigned d = busy(100, t);
    out[t] = *counter + (d == 3u);  // EXPECT(race)
  }
}

int main() {
  int *counter, *out;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  mixed<<<2, 32>>>(counter, out);
  CHECK_KERNEL();
  return verdict("atomic_vs_plain", true);
}
