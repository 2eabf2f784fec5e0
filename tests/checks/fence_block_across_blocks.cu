// fence_block_across_blocks (race, insufficient scope): message passing between two blocks
// through a volatile flag, with __threadfence_block() on both sides. A block-scope fence orders
// memory only as seen by threads of the same block: block 1's read of the message races with
// block 0's write, and the report must say the synchronization had insufficient scope.
#include "checks.h"

__global__ void mp(int* data, volatile int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;  // EXPECT(race)
    __threadfence_block();
    *flag = 1;
  } else {
    while (*flag == 0) {
    }
    __threadfence_block();
    out[0] = data[0];  // EXPECT(race)
  }
}

int main() {
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  mp<<<2, 32>>>(data, flag, out);
  CHECK_KERNEL();
  return verdict("fence_block_across_blocks", true);
}
