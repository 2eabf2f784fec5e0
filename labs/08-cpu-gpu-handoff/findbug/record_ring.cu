// Lab 08, find the bug: a producer block streams records to a consumer block through a ring.
//
// The ring (kSlots records, in mapped pinned memory, so that the host could take either side) is
// single-producer single-consumer: `head` counts the records ever pushed, `tail` those ever
// popped; only the producer writes head and the slots, only the consumer writes tail, and slot
// i % kSlots holds record i. Each side reads the counter it owns relaxed and the other side's with
// an acquire load, and publishes its own with a release store (system scope, as the host may be
// the other side). Thread 0 of block 0 pushes records i = 0 .. kItems - 1 with value
// checksum(i); thread 0 of block 1 pops them into out[0 .. kItems). A side retries while the ring
// is full (push) or empty (pop). The check expects every record once, in order, with its value.
#include <cuda_runtime.h>

#include <cstdio>
#include <cuda/atomic>

template <class T>
using SysAtomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

constexpr unsigned kSlots = 4;
constexpr int kItems = 10;

struct Record {
  int id;
  int value;
};

struct Ring {
  unsigned head;
  unsigned tail;
  Record slot[kSlots];
};

__host__ __device__ inline int checksum(int i) { return (i * 7919 + 13) % 65521; }

// Producer side: false when the ring is full (nothing changes).
__host__ __device__ bool ring_push(Ring* r, Record rec) {
  SysAtomic<unsigned> head(r->head), tail(r->tail);
  const unsigned h = head.load(cuda::memory_order_relaxed);
  if (h - tail.load(cuda::memory_order_acquire) == kSlots) return false;
  head.store(h + 1, cuda::memory_order_release);
  r->slot[h % kSlots] = rec;
  return true;
}

// Consumer side: false when the ring is empty (nothing changes).
__host__ __device__ bool ring_pop(Ring* r, Record* rec) {
  SysAtomic<unsigned> head(r->head), tail(r->tail);
  const unsigned t = tail.load(cuda::memory_order_relaxed);
  if (head.load(cuda::memory_order_acquire) == t) return false;
  *rec = r->slot[t % kSlots];
  tail.store(t + 1, cuda::memory_order_release);
  return true;
}

__global__ void stream_records(Ring* ring, Record* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < kItems;) {
      if (ring_push(ring, Record{i, checksum(i)})) ++i;
    }
  } else if (blockIdx.x == 1) {
    for (int i = 0; i < kItems;) {
      if (ring_pop(ring, &out[i])) ++i;
    }
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

int main() {
  Ring *h_ring = nullptr, *d_ring = nullptr;
  Record* d_out = nullptr;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  CHECK(cudaHostAlloc(&h_ring, sizeof(Ring), cudaHostAllocMapped));
  *h_ring = Ring{};
  CHECK(cudaHostGetDevicePointer(&d_ring, h_ring, 0));
  CHECK(cudaMalloc(&d_out, kItems * sizeof(Record)));
  CHECK(cudaMemset(d_out, 0xff, kItems * sizeof(Record)));
  stream_records<<<2, 32>>>(d_ring, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Record out[kItems];
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_out));
  CHECK(cudaFreeHost(h_ring));

  for (int i = 0; i < kItems; ++i) {
    if (out[i].id != i || out[i].value != checksum(i)) {
      std::printf("wrong record %d: {%d, %d}, expected {%d, %d}\n", i, out[i].id, out[i].value, i,
                  checksum(i));
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
