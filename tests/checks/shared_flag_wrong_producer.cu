// shared_flag_wrong_producer (hang under both models): thread 0 waits for a __shared__ flag that
// another warp should raise, but the producer is picked by a thread index the block does not have
// (64 in a block of 64 threads), so nobody raises it. The hang report names what the loop polls
// by its __shared__ variable ("__shared__ wait_for_shared_flag(int*)::ready, byte 0"), not by a
// raw address.
//   -DFIX  the producer is thread 32, which exists: the kernel completes, nothing is reported.
#include "checks.h"

constexpr unsigned kThreads = 64;

__global__ void wait_for_shared_flag(int* out) {
  __shared__ volatile int ready;
  __shared__ int value;
  if (threadIdx.x == 0) ready = 0;
  __syncthreads();
#ifdef FIX
  const unsigned producer = 32;
#else
  const unsigned producer = kThreads;  // one past the last thread
#endif
  if (threadIdx.x == producer) {
    value = 42;
    __threadfence_block();  // value before the flag
    ready = 1;
  }
  if (threadIdx.x == 0) {
    while (ready == 0) {  // EXPECT(hang)
    }
    __threadfence_block();  // the flag before value
    out[0] = value;
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  wait_for_shared_flag<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("shared_flag_wrong_producer", got == 42);
}
