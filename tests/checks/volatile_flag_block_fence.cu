// volatile_flag_block_fence (races under SYNCLAB_VOLATILE=data, both models): block 0 writes a
// volatile value, fences with __threadfence_block() and raises a volatile flag; block 1 spins on
// the flag and reads the value. A block-scope fence orders nothing for another block, and volatile
// is not synchronization: block 1 may see the flag and an old value. Under the PTX definition of a
// data race (SYNCLAB_VOLATILE=strong, the default) these strong accesses do not race and nothing is
// reported; under data both the flag and the value race, and the report must say that volatile is
// not synchronization and advise an atomic flag with release/acquire.
//   -DFIX  the flag is a cuda::atomic_ref<int, cuda::thread_scope_device> stored with
//          memory_order_release and loaded with memory_order_acquire (the advice); the value stays
//          volatile: nothing is reported under data either.
#include <cuda/atomic>

#include "checks.h"

__device__ int flag = 0;
__device__ volatile int value = 0;

__global__ void publish(int* out) {
  if (threadIdx.x != 0) return;
#ifdef FIX
  cuda::atomic_ref<int, cuda::thread_scope_device> f(flag);
#endif
  if (blockIdx.x == 0) {
    value = 42;  // EXPECT(race)
#ifdef FIX
    f.store(1, cuda::memory_order_release);
#else
    __threadfence_block();
    *(volatile int*)&flag = 1;  // EXPECT(race)
#endif
  } else {
#ifdef FIX
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
#else
    while (*(volatile int*)&flag == 0) {  // EXPECT(race)
    }
#endif
    *out = value;  // EXPECT(race)
  }
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  publish<<<2, 32>>>(out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("volatile_flag_block_fence", got == 42);
}
