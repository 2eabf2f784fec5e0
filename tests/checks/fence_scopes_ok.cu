// fence_scopes_ok (clean): message passing where the scope of the synchronization covers both
// threads.
//   within_block: warp 0 and warp 1 of one block, volatile flag and __threadfence_block();
//   block_ref_within_block: the same with cuda::atomic_ref<int, thread_scope_block> release/acquire;
//   across_blocks: two blocks, volatile flag and __threadfence() (device scope);
//   thread_fence_across_blocks: two blocks, cuda::atomic_thread_fence(release / acquire, device
//     scope) around relaxed atomic_ref accesses to the flag.
// No race.
#include <cuda/atomic>

#include "checks.h"

using block_ref = cuda::atomic_ref<int, cuda::thread_scope_block>;
using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void within_block(int* data, volatile int* flag, int* out) {
  if (threadIdx.x == 0) {
    data[0] = 42;
    __threadfence_block();
    *flag = 1;
  } else if (threadIdx.x == 32) {
    while (*flag == 0) {
    }
    __threadfence_block();
    out[0] = data[0];
  }
}

__global__ void block_ref_within_block(int* data, int* flag, int* out) {
  if (threadIdx.x == 0) {
    data[1] = 43;
    block_ref(*flag).store(1, cuda::memory_order_release);
  } else if (threadIdx.x == 32) {
    while (block_ref(*flag).load(cuda::memory_order_acquire) == 0) {
    }
    out[1] = data[1];
  }
}

__global__ void across_blocks(int* data, volatile int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[2] = 44;
    __threadfence();
    *flag = 1;
  } else {
    while (*flag == 0) {
    }
    __threadfence();
    out[2] = data[2];
  }
}

__global__ void thread_fence_across_blocks(int* data, int* flag, int* out) {
  if (threadIdx.x != 0) return;
  device_ref f(*flag);
  if (blockIdx.x == 0) {
    data[3] = 45;
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
    f.store(1, cuda::memory_order_relaxed);
  } else {
    while (f.load(cuda::memory_order_relaxed) == 0) {
    }
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    out[3] = data[3];
  }
}

int main() {
  int *data, *flags, *out;
  int h[4];
  CHECK(cudaMalloc(&data, 4 * sizeof(int)));
  CHECK(cudaMalloc(&out, 4 * sizeof(int)));
  CHECK(cudaMalloc(&flags, 4 * sizeof(int)));
  CHECK(cudaMemset(flags, 0, 4 * sizeof(int)));
  within_block<<<1, 64>>>(data, flags, out);
  CHECK_KERNEL();
  block_ref_within_block<<<1, 64>>>(data, flags + 1, out);
  CHECK_KERNEL();
  across_blocks<<<2, 32>>>(data, flags + 2, out);
  CHECK_KERNEL();
  thread_fence_across_blocks<<<2, 32>>>(data, flags + 3, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  return verdict("fence_scopes_ok", h[0] == 42 && h[1] == 43 && h[2] == 44 && h[3] == 45);
}
