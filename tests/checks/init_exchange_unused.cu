// init_exchange_unused (clean, both models): atomicExch into cudaMalloc memory that nothing has
// written, with the old value thrown away, is a store: the init checker says nothing.
//   -DUSE_OLD  the old value is used (copied out): that is a read of uninitialized memory, and the
//              init checker reports it.
#include "checks.h"

constexpr int kThreads = 64;

__global__ void exchange(int* slots, int* out) {
  const int t = threadIdx.x;
#ifdef USE_OLD
  out[t] = atomicExch(&slots[t], t + 1);  // EXPECT(init)
#else
  atomicExch(&slots[t], t + 1);
  out[t] = 0;
#endif
}

int main() {
  int *slots, *out;
  CHECK(cudaMalloc(&slots, kThreads * sizeof(int)));  // never written before the kernel
  CHECK(cudaMalloc(&out, kThreads * sizeof(int)));
  exchange<<<1, kThreads>>>(slots, out);
  CHECK_KERNEL();
  int h[kThreads];
  CHECK(cudaMemcpy(h, slots, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < kThreads; ++i) ok = ok && h[i] == i + 1;
  return verdict("init_exchange_unused", ok);
}
