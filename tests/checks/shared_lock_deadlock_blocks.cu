// shared_lock_deadlock_blocks (deadlock under lockstep): every lane of each block's one warp takes
// a spin lock in its block's shared memory. Each block's lock word is its own, so the report's
// "last written by" for block 1's lanes must name a thread of block 1 (shared memory of one block
// is not another block's): the hang detector keeps the last writer of a shared word per block.
// tests/checks/CMakeLists.txt names the lines: keep them.
#include "checks.h"

__global__ void count(int* total) {
  __shared__ int lock;
  __shared__ int sum;
  if (threadIdx.x == 0) lock = 0, sum = 0;
  __syncthreads();
  while (atomicCAS(&lock, 0, 1) != 0) {  // EXPECT(deadlock)
  }
  __threadfence_block();
  sum = sum + 1;
  __threadfence_block();
  atomicExch(&lock, 0);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(total, sum);
}

int main() {
  int* total;
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  count<<<2, 32>>>(total);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("shared_lock_deadlock_blocks", got == 64);
}
