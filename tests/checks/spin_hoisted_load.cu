// spin_hoisted_load (hang under both models): block 0 waits for block 1's flag with a plain
// (non-volatile) load; block 1 raises it after a delay, so the wait begins first. The compiler may assume no other thread changes the flag, reads it once
// before the loop and spins on a register: the PTX loop has no load at all. The hang report must
// say that the loop reads no memory and advise a volatile or atomic load.
//   -DFIX  the flag read through a volatile pointer: the kernel completes, nothing is reported.
#include "checks.h"

__global__ void wait_for_flag(int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 1) {
    out[1] = busy(2000, threadIdx.x);  // a delay (register arithmetic only)
    atomicExch(flag, 1);
  } else {
#ifdef FIX
    while (*(volatile int*)flag == 0) {
    }
#else
    while (*flag == 0) {  // EXPECT(hang)
    }
#endif
    atomicExch(out, 1);
  }
}

int main() {
  int *flag, *out;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, 2 * sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(out, 0, 2 * sizeof(int)));
  wait_for_flag<<<2, 32>>>(flag, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("spin_hoisted_load", got == 1);
}
