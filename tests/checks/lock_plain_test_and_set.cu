// lock_plain_test_and_set: one thread in each of four blocks takes a lock by waiting until the
// word reads 0 and then writing 1, with plain accesses, and gives it back with atomicExch. The read
// and the write are two steps, so two threads can both read 0 and both enter. The report says that
// the word is read and written plainly and also updated atomically, and advises one atomic
// operation (atomicCAS); -DFIX applies that advice, and then nothing is reported.
#include "checks.h"

__global__ void count(int* lock, int* total) {
#ifdef FIX
  while (atomicCAS(lock, 0, 1) != 0) {
  }
#else
  while (*lock != 0) {
  }
  *lock = 1;  // EXPECT(race)
#endif
  __threadfence();
  // (two threads in the section at once race here too)
  *total = *total + 1;  // EXPECT(race)
  __threadfence();
  atomicExch(lock, 0);
}

int main() {
  int *lock, *total;
  CHECK(cudaMalloc(&lock, sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMemset(lock, 0, sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  count<<<4, 1>>>(lock, total);
  CHECK_KERNEL();
  int h = 0;
  CHECK(cudaMemcpy(&h, total, sizeof h, cudaMemcpyDeviceToHost));
  if (h != 4) std::printf("total = %d, expected 4 (two threads were in the section at once)\n", h);
  return verdict("lock_plain_test_and_set", true);
}
