// Lab 08, find the bug: the host and a persistent kernel take turns extending one sequence.
//
// The sequence log[0 .. kLength) and the word `turn` live in mapped pinned memory. turn holds the
// index of the next entry to write. The host writes the even entries, one thread of a running
// kernel the odd ones, both with take_turns: for each of its indices k, a side waits until turn is
// k (an acquire load), writes log[k] = next_entry(log[k - 1], k) (log[0] = kFirst), and hands the
// turn over by storing k + 1 (a release store). A side stops after its own last index, whatever
// the other side does. The check compares the whole sequence with a host loop and expects turn to
// end at kLength.
#include <cuda_runtime.h>

#include <cstdio>
#include <cuda/atomic>

using TurnAtomic = cuda::atomic_ref<int, cuda::thread_scope_device>;

constexpr int kLength = 12;
constexpr int kFirst = 5;

__host__ __device__ inline int next_entry(int previous, int k) { return (previous * 31 + k) % 10007; }

// On the device: true. On the host: true while waiting makes sense; every 64 calls it asks whether
// the launch still runs and gives up at the second answer that it does not (the kernel may have
// handed the turn over just before it returned: the first such answer allows one more look).
__host__ __device__ inline bool keep_waiting() {
#ifdef __CUDA_ARCH__
  return true;
#else
  static unsigned calls = 0, ended = 0;
  if (++calls % 64 != 0) return true;
  if (cudaStreamQuery(0) == cudaErrorNotReady) return true;
  return ++ended < 2;
#endif
}

// Plays the side of parity `parity` (0: even indices, 1: odd ones).
__host__ __device__ void take_turns(int* turn_word, int* log, int parity) {
  TurnAtomic turn(*turn_word);
  for (int k = parity; k < kLength; k += 2) {
    while (turn.load(cuda::memory_order_acquire) != k) {
      if (!keep_waiting()) return;
    }
    log[k] = k == 0 ? kFirst : next_entry(log[k - 1], k);
    turn.store(k + 1, cuda::memory_order_release);
  }
}

__global__ void odd_side(int* turn_word, int* log) {
  if (blockIdx.x == 0 && threadIdx.x == 0) take_turns(turn_word, log, 1);
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

struct Shared {
  int turn;
  int log[kLength];
};

int main() {
  Shared *h = nullptr, *d = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h, sizeof(Shared), cudaHostAllocMapped));
  *h = Shared{};
  CHECK(cudaHostGetDevicePointer(&d, h, 0));
  odd_side<<<1, 32>>>(&d->turn, d->log);
  CHECK(cudaGetLastError());
  take_turns(&h->turn, h->log, 0);
  CHECK(cudaDeviceSynchronize());

  int want = kFirst;
  for (int k = 0; k < kLength; ++k) {
    if (k > 0) want = next_entry(want, k);
    if (h->log[k] != want) {
      std::printf("wrong entry %d: %d, expected %d\n", k, h->log[k], want);
      return 1;
    }
  }
  if (h->turn != kLength) {
    std::printf("wrong final turn: %d, expected %d\n", h->turn, kLength);
    return 1;
  }
  CHECK(cudaFreeHost(h));
  std::printf("ok\n");
  return 0;
}
