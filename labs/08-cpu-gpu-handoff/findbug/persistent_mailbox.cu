// Lab 08, find the bug: a persistent kernel that answers the host's requests through a mailbox.
//
// The mailbox lives in mapped pinned memory, which the host reaches through its host pointer and
// the kernel through its device pointer. One kernel thread runs for the whole program and serves
// rounds k = 1, 2, ...: the host writes the request, then publishes k in `asked`; the kernel
// waits until `asked` is k, writes answer = next_value(request) and publishes k in `answered`;
// the host waits until `answered` is k and reads the answer. A request of -1 asks the kernel to
// return; it publishes that round's `answered` first. The check chains kRounds round trips from
// kStart and compares every answer with next_value() computed on the host.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cuda/atomic>

template <class T>
using SysAtomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

constexpr int kRounds = 6;
constexpr int kStart = 17;

struct Mailbox {
  int request;
  int answer;
  unsigned asked;
  unsigned answered;
};

__host__ __device__ inline int next_value(int x) { return (x % 2 == 0) ? x / 2 : 3 * x + 1; }

__global__ void mailbox_server(Mailbox* mb) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  SysAtomic<unsigned> answered(mb->answered);
  for (unsigned round = 1;; ++round) {
    while (mb->asked != round) {
    }
    const int request = mb->request;
    if (request >= 0) mb->answer = next_value(request);
    answered.store(round, cuda::memory_order_release);
    if (request < 0) return;
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

// Called in the host's wait loop: false once the launch has ended (or failed), or after 10 s.
bool kernel_still_running(std::chrono::steady_clock::time_point deadline) {
  static unsigned calls = 0;
  if (++calls % 64 != 0) return true;
  return cudaStreamQuery(0) == cudaErrorNotReady && std::chrono::steady_clock::now() < deadline;
}

// One round trip: returns false when the kernel stopped answering.
bool round_trip(Mailbox* mb, unsigned round, int request, int* answer) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  mb->request = request;
  SysAtomic<unsigned>(mb->asked).store(round, cuda::memory_order_release);
  bool running = true;
  while (SysAtomic<unsigned>(mb->answered).load(cuda::memory_order_acquire) != round) {
    if (!running) return false;  // the launch had ended before this last look
    running = kernel_still_running(deadline);
  }
  *answer = mb->answer;
  return true;
}

// After the kernel stopped answering: collects the launch's error when it has ended (a kernel
// still stuck after the deadline is left behind).
void finish_if_ended() {
  if (cudaStreamQuery(0) != cudaErrorNotReady) cudaDeviceSynchronize();
}

int main() {
  Mailbox *h_mb = nullptr, *d_mb = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h_mb, sizeof(Mailbox), cudaHostAllocMapped));
  *h_mb = Mailbox{};
  CHECK(cudaHostGetDevicePointer(&d_mb, h_mb, 0));
  mailbox_server<<<1, 32>>>(d_mb);
  CHECK(cudaGetLastError());

  // Every round's request is the right answer of the round before, whatever the kernel answered.
  int x = kStart;
  bool right = true;
  for (unsigned round = 1; round <= kRounds; ++round) {
    int answer = 0;
    if (!round_trip(h_mb, round, x, &answer)) {
      std::printf("no answer in round %u: the kernel stopped answering\n", round);
      finish_if_ended();
      return 1;
    }
    if (right && answer != next_value(x)) {
      std::printf("wrong answer in round %u: %d, expected %d\n", round, answer, next_value(x));
      right = false;
    }
    x = next_value(x);
  }
  int last = 0;
  if (!round_trip(h_mb, kRounds + 1, -1, &last)) {
    std::printf("the kernel did not answer the request to return\n");
    finish_if_ended();
    return 1;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h_mb));
  if (!right) return 1;
  std::printf("ok\n");
  return 0;
}
