// flag_plain_load: block 0 publishes data through a flag the right way on its side (the data,
// __threadfence(), then a volatile store of the flag); block 1 reads the flag with a plain load.
// Both blocks first take a ticket with atomicAdd, as a scan's tiles do, so the reader has heard
// from the writer through that atomic. The race is on the flag: a plain load racing with the
// flag's store, whatever fences the writer used (and a plain load in a spin loop may be kept in
// a register). The report must say to read the flag through volatile or an atomic, and must not
// tell the writer to release, which it does already. -DFIX reads the flag through volatile (and
// fences after it), and then nothing is reported. (The reader does not go on to read the data:
// this program is about the flag's own load.)
#include "checks.h"

__device__ unsigned ticket = 0;
__device__ int data = 0;
__device__ int flag = 0;

__global__ void publish(int* out) {
  if (threadIdx.x != 0) return;
  const unsigned t = atomicAdd(&ticket, 1);
  if (blockIdx.x == 0) {
    data = 42;
    __threadfence();
    *(volatile int*)&flag = 1;  // EXPECT(race)
  } else {
#ifdef FIX
    const int f = *(volatile int*)&flag;
    __threadfence();
#else
    const int f = flag;  // EXPECT(race)
#endif
    out[0] = f;
    out[1] = int(t);
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 2 * sizeof(int)));
  publish<<<2, 32>>>(out);
  CHECK_KERNEL();
  int h[2];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 0 && h[0] != 1) printf("read flag %d: neither 0 nor 1\n", h[0]);
  return verdict("flag_plain_load", true);
}
