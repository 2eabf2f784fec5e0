// release_before_read (pending: misleading advice). A single-producer single-consumer ring of 4
// slots between two blocks. The consumer publishes tail + 1 (a release store) BEFORE it reads the
// slot, so the producer, which acquires tail, may refill the slot while the consumer still reads
// it: a write-after-read race between the producer's slot write and the consumer's slot read.
// Expected: the race, with advice to read the slot before publishing tail (the release orders only
// what comes before it). Now: the report says the producer "read a flag or lock that the other
// thread released, but did not acquire it" and advises a fence after that read, although the
// producer's read of tail IS an acquire; that advice does not fix the bug.
#include <cstdio>

#include <cuda/atomic>

#include "../checks.h"

constexpr unsigned kSlots = 4;
constexpr int kItems = 10;

struct Ring {
  unsigned head, tail;
  int slot[kSlots];
};

__global__ void pass_items(Ring* r, int* out) {
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> head(r->head), tail(r->tail);
  if (blockIdx.x == 0) {
    for (int i = 0; i < kItems;) {
      const unsigned h = head.load(cuda::memory_order_relaxed);
      if (h - tail.load(cuda::memory_order_acquire) == kSlots) continue;
      r->slot[h % kSlots] = i * 7;  // EXPECT(race)
      head.store(h + 1, cuda::memory_order_release);
      ++i;
    }
  } else {
    for (int i = 0; i < kItems;) {
      const unsigned t = tail.load(cuda::memory_order_relaxed);
      if (head.load(cuda::memory_order_acquire) == t) continue;
#ifdef FIX
      out[i++] = r->slot[t % kSlots];
      tail.store(t + 1, cuda::memory_order_release);
#else
      tail.store(t + 1, cuda::memory_order_release);
      out[i++] = r->slot[t % kSlots];  // EXPECT(race)
#endif
    }
  }
}

int main() {
  Ring* r;
  int* out;
  CHECK(cudaMalloc(&r, sizeof(Ring)));
  CHECK(cudaMalloc(&out, kItems * sizeof(int)));
  CHECK(cudaMemset(r, 0, sizeof(Ring)));
  pass_items<<<2, 32>>>(r, out);
  CHECK_KERNEL();
  int got[kItems];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < kItems; ++i) ok = ok && got[i] == i * 7;
  CHECK(cudaFree(r));
  CHECK(cudaFree(out));
  return verdict("release_before_read", ok);
}
