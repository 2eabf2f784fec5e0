// WRONG SOLUTION (lab 08, task 5b): queue_server reads the stop flag before the pop, as it should,
// but relaxed. The host pushes its last item (a release store of the work ring's head) and then sets
// stop; a relaxed load of stop orders nothing after it, so the kernel may see the flag and still an
// older head, find the ring empty and return with the last item unanswered (under PTX, and under
// the simulator's relaxed memory model, where the host is a thread of its own).
// WRONG-REPLACES: ring.cu
// WRONG-FAILS: lab08 task5b the work queue between the host and a persistent kernel answers every item and shuts down
// WRONG-MESSAGE: item 11 never came back
// WRONG-MESSAGE: read stop BEFORE the pop, with
// WRONG-MESSAGE: a relaxed read of stop may
// WRONG-FIX: stop.load(cuda::memory_order_relaxed) => stop.load(cuda::memory_order_acquire)
// Lab 08, task 5: a single-producer, single-consumer ring buffer in mapped pinned memory, carrying
// work from the CPU to a persistent kernel and the results back. The same ring_push and ring_pop run
// on the host and on the device (they only use SystemAtomic and plain accesses to the slots).
#include "lab08_kernels.cuh"

__host__ __device__ bool ring_push(Ring* r, int item) {
  // TODO(5a): full when head - tail == kRingSize (read tail with acquire: the consumer's release
  // says it has read the slot). Else write the item into slot head % kRingSize, THEN publish
  // head + 1 with a release store, so that a consumer that sees the new head sees the item
  // (about 6 lines).
  SystemAtomic<unsigned> head(r->head), tail(r->tail);
  const unsigned h = head.load(cuda::memory_order_relaxed);  // only this side writes head
  if (h - tail.load(cuda::memory_order_acquire) == kRingSize) return false;
  r->slot[h % kRingSize] = item;
  head.store(h + 1, cuda::memory_order_release);
  return true;
}

__host__ __device__ bool ring_pop(Ring* r, int* item) {
  // TODO(5a): empty when head == tail (read head with acquire: it publishes the item). Else read
  // slot tail % kRingSize, THEN publish tail + 1 with a release store (the slot may be reused
  // once the producer sees it) (about 6 lines).
  SystemAtomic<unsigned> head(r->head), tail(r->tail);
  const unsigned t = tail.load(cuda::memory_order_relaxed);  // only this side writes tail
  if (head.load(cuda::memory_order_acquire) == t) return false;
  *item = r->slot[t % kRingSize];
  tail.store(t + 1, cuda::memory_order_release);
  return true;
}

__global__ void queue_server(WorkQueue* q) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(5b): until told to stop: pop an item from q->work and push work(item) into q->results
  // (retry the push while the results ring is full). Read stop (acquire) BEFORE trying to pop, and
  // return only when it was set and the pop then found the ring empty: the host sets stop after
  // its last push, so no pushed item is left unanswered (about 9 lines).
  SystemAtomic<int> stop(q->stop);
  for (;;) {
    const bool stopping = stop.load(cuda::memory_order_relaxed) != 0;  // BUG: orders nothing after it
    int item;
    if (ring_pop(&q->work, &item)) {
      while (!ring_push(&q->results, work(item))) {
      }
    } else if (stopping) {
      return;
    }
  }
}

// ---- provided: two blocks share one ring (do not edit) --------------------------------------------
__global__ void ring_pair(Ring* r, int items, int* out, long long patience) {
  if (threadIdx.x != 0) return;
  // patience > 0 (on a GPU): give up after that many failed tries in a row, so that a ring that
  // never works ends the launch (the simulator finds such a loop stuck by itself: patience 0).
  long long failed = 0;
  if (blockIdx.x == 0) {
    for (int i = 0; i < items;) {
      if (ring_push(r, work(i))) ++i, failed = 0;
      else if (patience && ++failed > patience) return;
    }
  } else if (blockIdx.x == 1) {
    for (int i = 0; i < items;) {
      int v;
      if (ring_pop(r, &v)) out[i++] = v, failed = 0;
      else if (patience && ++failed > patience) return;
    }
  }
}
