// release_before_read (regression: misleading advice). A single-producer single-consumer ring of
// 4 slots between two blocks. The consumer publishes tail + 1 (a release store) BEFORE it reads the
// slot, so the producer, which acquires tail, may refill the slot while the consumer still reads
// it: a write-after-read race between the producer's slot write and the consumer's slot read.
// Expected: the race, with advice to read the slot before publishing tail (the release orders only
// what comes before it); -DFIX does that and must stay silent. The report used to say the producer
// "read a flag or lock that the other thread released, but did not acquire it" and advise a fence
// after that read, although the producer's read of tail is an acquire: the producer's relaxed
// re-read of its own head counted as a release it held unacquired (RaceFinding::unacquired now
// counts only releases that would order the racing access; RaceFinding::after_release names this
// case). The release and acquire accesses are inline PTX, as <cuda/atomic> compiles them.
#include <cstdio>

#include "checks.h"

__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

constexpr unsigned kSlots = 4;
constexpr int kItems = 10;

struct Ring {
  unsigned head, tail;
  int slot[kSlots];
};

__global__ void pass_items(Ring* r, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < kItems;) {
      const unsigned h = load_relaxed(&r->head);
      if (h - load_acquire(&r->tail) == kSlots) continue;
      r->slot[h % kSlots] = i * 7;  // EXPECT(race)
      store_release(&r->head, h + 1);
      ++i;
    }
  } else {
    for (int i = 0; i < kItems;) {
      const unsigned t = load_relaxed(&r->tail);
      if (load_acquire(&r->head) == t) continue;
#ifdef FIX
      out[i++] = r->slot[t % kSlots];
      store_release(&r->tail, t + 1);
#else
      store_release(&r->tail, t + 1);
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
