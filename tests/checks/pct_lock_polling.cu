// pct_lock_polling (clean): worker threads that take a lock, find the shared queue empty and
// release the lock again must not starve the thread that fills the queue. Each pass of their loop
// changes memory twice (lock taken, lock released) but has no net effect: the simulator counts
// them as waiting (sim/check/hang_detector.h), and the pct scheduler runs them last, as it runs
// spinning threads last. Before that, pct kept running the highest-priority worker forever.
// Leader lanes only (one per warp), so that lockstep warps never contend with themselves.
//   exch:     release with atomicExch (after __threadfence)
//   volatile: release with a volatile store (after __threadfence)
#include "checks.h"

constexpr int kItems = 48;
constexpr int kWarps = 4;

__device__ unsigned item_value(int i) { return busy(40, unsigned(i)) % 1000u + 1u; }

template <bool kVolatileRelease>
__device__ void release(int* lock) {
  __threadfence();
  if (kVolatileRelease)
    *reinterpret_cast<volatile int*>(lock) = 0;
  else
    atomicExch(lock, 0);
}

template <bool kVolatileRelease>
__global__ void produce_consume(int* lock, unsigned* queue, int* count, int* consumed, unsigned* sum) {
  if (threadIdx.x % 32 != 0) return;
  if (threadIdx.x / 32 == 0) {
    for (int i = 0; i < kItems; ++i) {
      const unsigned v = item_value(i);  // some work per item
      while (atomicCAS(lock, 0, 1) != 0) {
      }
      __threadfence();
      queue[*count] = v;
      *count += 1;
      release<kVolatileRelease>(lock);
    }
    return;
  }
  for (;;) {
    unsigned got = 0;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    if (*count > 0) {
      *count -= 1;
      got = queue[*count];
      *consumed += 1;
    }
    const bool done = *consumed == kItems;
    release<kVolatileRelease>(lock);
    if (got) atomicAdd(sum, got);
    if (done) break;
  }
}

template <bool kVolatileRelease>
bool run(int* lock, unsigned* queue, int* count, int* consumed, unsigned* sum) {
  CHECK(cudaMemset(lock, 0, sizeof(int)));
  CHECK(cudaMemset(count, 0, sizeof(int)));
  CHECK(cudaMemset(consumed, 0, sizeof(int)));
  CHECK(cudaMemset(sum, 0, sizeof(unsigned)));
  produce_consume<kVolatileRelease><<<1, 32 * kWarps>>>(lock, queue, count, consumed, sum);
  CHECK_KERNEL();
  unsigned got = 0, want = 0;
  CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kItems; ++i) {
    unsigned x = unsigned(i);
    for (unsigned k = 0; k < 40; ++k) x = x * 1664525u + 1013904223u;  // busy(40, i) on the host
    want += x % 1000u + 1u;
  }
  if (got != want) std::printf("%s release: sum %u, expected %u\n", kVolatileRelease ? "volatile" : "atomicExch", got, want);
  return got == want;
}

int main() {
  int *lock, *count, *consumed;
  unsigned *queue, *sum;
  CHECK(cudaMalloc(&lock, sizeof(int)));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMalloc(&consumed, sizeof(int)));
  CHECK(cudaMalloc(&queue, kItems * sizeof(unsigned)));
  CHECK(cudaMalloc(&sum, sizeof(unsigned)));
  bool ok = run<false>(lock, queue, count, consumed, sum);
  ok = run<true>(lock, queue, count, consumed, sum) && ok;
  CHECK(cudaFree(lock));
  CHECK(cudaFree(count));
  CHECK(cudaFree(consumed));
  CHECK(cudaFree(queue));
  CHECK(cudaFree(sum));
  return verdict("pct_lock_polling", ok);
}
