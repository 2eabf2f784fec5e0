// The host publishes a request to a kernel through mapped memory: it writes the request, then
// raises a flag with a relaxed store through a system-scope cuda::atomic_ref, and a release fence
// (cuda::atomic_thread_fence) must come before that store to make it a release (PTX ISA, "Release
// and Acquire Patterns"; the host's fences are not seen, so the checker reads the host's source:
// docs/checkers.md, "The host"). Here the fence comes after the store: it releases nothing of the
// flag, and the kernel's read of the request, after its acquire of the flag, races with the host's
// write (the report names the host's line and advises memory_order_release).
//   -DFIX: the fence before the store: silent.
// Built by CMake with an absolute path, as the grader builds a student's file.
#include <cuda/atomic>

#include "checks.h"

struct Mailbox {
  int request;
  int answer;
  unsigned asked;
  unsigned answered;
};

template <class T>
using Sys = cuda::atomic_ref<T, cuda::thread_scope_system>;

__global__ void server(Mailbox* mb) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  Sys<unsigned> asked(mb->asked);
  Sys<unsigned> answered(mb->answered);
  for (unsigned round = 1; round <= 20; ++round) {
    while (asked.load(cuda::memory_order_acquire) != round) {
    }
    const int x = mb->request;  // EXPECT(race)
    mb->answer = x + 1;
    answered.store(round, cuda::memory_order_release);
  }
}

// The fence after the store: it releases nothing of the flag.
void ask_fence_after(Mailbox* h, unsigned round) {
  h->request = int(7 * round);
  Sys<unsigned>(h->asked).store(round, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
}

// The fence before the store: the store is a release.
void ask_fence_first(Mailbox* h, unsigned round) {
  h->request = int(7 * round);
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
  Sys<unsigned>(h->asked).store(round, cuda::memory_order_relaxed);
}

int main() {
  Mailbox* h = nullptr;
  Mailbox* d = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h, sizeof(Mailbox), cudaHostAllocMapped));
  *h = Mailbox{};
  CHECK(cudaHostGetDevicePointer(&d, h, 0));
  server<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  bool right = true;
  for (unsigned round = 1; round <= 20; ++round) {
#ifdef FIX
    ask_fence_first(h, round);
#else
    ask_fence_after(h, round);
#endif
    while (Sys<unsigned>(h->answered).load(cuda::memory_order_acquire) != round) {
    }
    right = right && h->answer == int(7 * round) + 1;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h));
  return verdict("host_fence_order", right);
}
