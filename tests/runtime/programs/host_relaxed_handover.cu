// host_relaxed_handover: under SYNCLAB_MEMORY=relaxed the host is a thread of its own. A kernel
// polls the host's flag y in mapped pinned memory; the host writes x, then y (both release stores
// at system scope), and the kernel then reads x.
//   - default: the kernel takes y with an acquire load: it must read x = 1 in every run (the host's
//     release of y orders x before it: reading 0 is forbidden by PTX). Prints "PASS" when no run
//     read 0.
//   - -DRELAXED_FLAG: the kernel takes y relaxed, which acquires nothing: reading x = 0 afterwards
//     is allowed by PTX, and the model should produce it. Prints how many runs read 0 and "PASS"
//     when at least one did.
#include <cuda/atomic>

#include <cstdio>

#include "check.h"

template <class T>
using Sys = cuda::atomic_ref<T, cuda::thread_scope_system>;

struct Box {
  int x, y, seen_x, started;
};

#ifdef RELAXED_FLAG
constexpr cuda::memory_order kFlag = cuda::memory_order_relaxed;
#else
constexpr cuda::memory_order kFlag = cuda::memory_order_acquire;
#endif

__global__ void reader(Box* b) {
  if (threadIdx.x != 0) return;
  (void)Sys<int>(b->x).load(cuda::memory_order_relaxed);  // x's old value is in the device's past
  Sys<int>(b->started).store(1, cuda::memory_order_release);
  while (Sys<int>(b->y).load(kFlag) == 0) {
  }
  b->seen_x = Sys<int>(b->x).load(cuda::memory_order_relaxed);
}

int main() {
  CHECK_OK(cudaSetDeviceFlags(cudaDeviceMapHost));
  const int runs = 60;
  int stale = 0;
  for (int i = 0; i < runs; ++i) {
    Box* h = nullptr;
    Box* d = nullptr;
    CHECK_OK(cudaHostAlloc(&h, sizeof(Box), cudaHostAllocMapped));
    *h = Box{};
    CHECK_OK(cudaHostGetDevicePointer(&d, h, 0));
    reader<<<1, 32>>>(d);
    CHECK_OK(cudaGetLastError());
    while (!Sys<int>(h->started).load(cuda::memory_order_acquire)) {
    }
    Sys<int>(h->x).store(1, cuda::memory_order_release);
    Sys<int>(h->y).store(1, cuda::memory_order_release);
    CHECK_OK(cudaDeviceSynchronize());
    stale += h->seen_x == 0;
    CHECK_OK(cudaFreeHost(h));
  }
  std::printf("x read as 0 after the flag in %d of %d runs\n", stale, runs);
#ifdef RELAXED_FLAG
  const bool ok = stale > 0;
  std::printf("%s host_relaxed_handover_relaxed_flag\n", ok ? "PASS" : "FAIL");
#else
  const bool ok = stale == 0 && g_failed_checks == 0;
  std::printf("%s host_relaxed_handover\n", ok ? "PASS" : "FAIL");
#endif
  return ok ? 0 : 1;
}
