// host_handover (race): the host is a thread at system scope. A persistent kernel answers the host's
// requests through a mailbox in mapped pinned memory: the host writes the request, then raises
// `asked` (release, system scope); the kernel waits for it, reads the request, writes the answer
// and raises `answered`. The kernel's side of the hand-over must be at system scope too: here it
// takes `asked` with a device-scope acquire, which does not reach the host (ERROR: an
// insufficient-scope race with the host, both models).
//   -DFIX: every device-side atomic at system scope: silent.
//   -DRELAXED_ASKED: `asked` loaded at system scope but relaxed, so it acquires nothing: the read
//    of the request races with the host's write (advice: acquire).
//   -DANSWERED_DEVICE: `asked` right, `answered` released at device scope: the host does not
//    acquire it, so its next request overwrites a word the device read with nothing between (the
//    report names the device-scope release).
//   -DHOST_ASKED_DEVICE: the kernel right, the host raising `asked` through an atomic_ref at
//    thread_scope_device, which includes no GPU thread (the report names the host's line).
//   -DHOST_STOP_DEVICE: the same for the host's `stop`.
//   -DASKED_FENCE_DEVICE: the kernel reads `asked` relaxed and then calls __threadfence(): an
//    acquire pattern at device scope, which leaves the host out (an insufficient-scope race that
//    names the fence); -DASKED_FENCE_SYSTEM: the same with __threadfence_system(), its fixed twin.
//   -DHOST_ASKED_RELAXED: the kernel right, the host raising `asked` with a relaxed store, which
//    releases nothing: the kernel's read of the request races with the host's write (the report
//    names the host's line and advises memory_order_release; FIX is that advice applied).
#include <cuda/atomic>

#include <synclab/regions.h>

#include "checks.h"

struct Mailbox {
  int request;
  int answer;
  unsigned asked;
  unsigned answered;
  int stop;
};

template <class T>
using Sys = cuda::atomic_ref<T, cuda::thread_scope_system>;
template <class T>
using Dev = cuda::atomic_ref<T, cuda::thread_scope_device>;

#if defined(FIX) || defined(RELAXED_ASKED) || defined(ANSWERED_DEVICE) || defined(HOST_ASKED_DEVICE) || \
    defined(HOST_STOP_DEVICE) || defined(HOST_ASKED_RELAXED) || defined(ASKED_FENCE_DEVICE) ||          \
    defined(ASKED_FENCE_SYSTEM)
template <class T>
using Asked = Sys<T>;
#else
template <class T>
using Asked = Dev<T>;
#endif
#ifdef ANSWERED_DEVICE
template <class T>
using Answered = Dev<T>;
#else
template <class T>
using Answered = Sys<T>;
#endif
#if defined(RELAXED_ASKED) || defined(ASKED_FENCE_DEVICE) || defined(ASKED_FENCE_SYSTEM)
constexpr cuda::memory_order kAskedOrder = cuda::memory_order_relaxed;
#else
constexpr cuda::memory_order kAskedOrder = cuda::memory_order_acquire;
#endif

__global__ void server(Mailbox* mb) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  Asked<unsigned> asked(mb->asked);
  Answered<unsigned> answered(mb->answered);
  Sys<int> stop(mb->stop);
  for (unsigned round = 1;; ++round) {
    while (asked.load(kAskedOrder) != round)              // EXPECT(race)
      if (stop.load(cuda::memory_order_acquire)) return;  // EXPECT(race)
#ifdef ASKED_FENCE_DEVICE
    __threadfence();
#elif defined(ASKED_FENCE_SYSTEM)
    __threadfence_system();
#endif
    const int x = mb->request;  // EXPECT(race)
    mb->answer = x + 1;
    answered.store(round, cuda::memory_order_release);
  }
}

#ifdef HOST_ASKED_DEVICE
template <class T>
using HostAsked = Dev<T>;
#else
template <class T>
using HostAsked = Sys<T>;
#endif
#ifdef HOST_ASKED_RELAXED
constexpr cuda::memory_order kHostAskedOrder = cuda::memory_order_relaxed;
#else
constexpr cuda::memory_order kHostAskedOrder = cuda::memory_order_release;
#endif
#ifdef HOST_STOP_DEVICE
template <class T>
using HostStop = Dev<T>;
#else
template <class T>
using HostStop = Sys<T>;
#endif

int main() {
  Mailbox* h = nullptr;
  Mailbox* d = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h, sizeof(Mailbox), cudaHostAllocMapped));
  // Named, so that a trace records the host's writes to it (synclab-trace interleaving lists them:
  // common.interleaving.host_handover).
  synclab_region(h, sizeof(Mailbox), "mailbox", "array");
  *h = Mailbox{};
  CHECK(cudaHostGetDevicePointer(&d, h, 0));
  server<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  bool right = true;
  for (unsigned round = 1; round <= 20; ++round) {
    h->request = int(7 * round);
    HostAsked<unsigned>(h->asked).store(round, kHostAskedOrder);
    while (Sys<unsigned>(h->answered).load(cuda::memory_order_acquire) != round) {
    }
    right = right && h->answer == int(7 * round) + 1;
  }
  HostStop<int>(h->stop).store(1, cuda::memory_order_release);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h));
  return verdict("host_handover", right);
}
