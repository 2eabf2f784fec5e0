// Lab 06, task 6: a bounded queue of your own design (README, task 6). One design that meets the
// contract of lab06_kernels.cuh: a ring of 8 slots, each with a turn word that says whose the slot
// is (after Dmitry Vyukov's bounded MPMC queue, 1024cores.net). (Another, one lock word taken with
// a single atomicCAS that never spins, is tests/labs/designs/06-linked-lists/own_queue_lock.cu;
// both pass the graded tests.)
//
// Position p (the p-th push, and the p-th pop) uses slot p % 8 in lap p / 8. The slot's turn word
// is 2 * lap while it waits for lap's push, 2 * lap + 1 once that push wrote its value, and
// 2 * lap + 2 once the value was popped, which is the next lap's "free". tail and head count
// positions; a thread takes a position with one atomicCAS, and only after the slot's turn said the
// position is ready, so a push never overwrites a value nobody popped and a pop never reads a value
// not yet written. The turn is the hand-over between the slot's pusher and popper: the value is
// written before the turn says "full" (a fence between, the release), and read after the turn said
// so (a fence between, the acquire); the same the other way for "free".
//
// q[0]: tail, q[1]: head, q[2 + i]: slot i's turn, q[2 + kQueueCapacity + i]: slot i's value.
#include "lab06_kernels.cuh"

namespace lab06 {

namespace {
constexpr int kTail = 0, kHead = 1, kTurn = 2, kValue = 2 + kQueueCapacity;
}  // namespace

__device__ bool queue_push(unsigned* q, int v) {
  const unsigned p = *(volatile unsigned*)&q[kTail];
  const unsigned slot = p % kQueueCapacity, lap = p / kQueueCapacity;
  if (*(volatile unsigned*)&q[kTurn + slot] != 2 * lap) return false;  // full, or the tail moved on
  if (atomicCAS(&q[kTail], p, p + 1) != p) return false;                // another push took p
  __threadfence();  // acquire: the popper of the last lap read the slot before it said "free"
  q[kValue + slot] = unsigned(v);
  __threadfence();  // release: the value before the turn says "full"
  *(volatile unsigned*)&q[kTurn + slot] = 2 * lap + 1;
  return true;
}

__device__ bool queue_pop(unsigned* q, int* v) {
  const unsigned p = *(volatile unsigned*)&q[kHead];
  const unsigned slot = p % kQueueCapacity, lap = p / kQueueCapacity;
  if (*(volatile unsigned*)&q[kTurn + slot] != 2 * lap + 1) return false;  // empty, or the head moved on
  if (atomicCAS(&q[kHead], p, p + 1) != p) return false;                    // another pop took p
  __threadfence();  // acquire: the value its push wrote before saying "full"
  *v = int(q[kValue + slot]);
  __threadfence();  // release: the value read before the turn says "free" for the next lap's push
  *(volatile unsigned*)&q[kTurn + slot] = 2 * lap + 2;
  return true;
}

// ---- provided: the kernels that use the queue -----------------------------------------------------
__global__ void queue_pairs(unsigned* q, int rounds, int* got) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    const int mine = g * rounds + r + 1;
    bool pushed = false, popped = false;
    int v = 0;
    // One loop for both calls, so that under lockstep a lane whose call succeeded never waits at a
    // reconvergence point for warp-mates that are still trying.
    while (!popped) {
      if (!pushed)
        pushed = queue_push(q, mine);
      else
        popped = queue_pop(q, &v);
    }
    got[g * rounds + r] = v;
  }
}

__global__ void queue_alone(unsigned* q, const int* plan, int steps, int* result, int* value) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int i = 0; i < steps; ++i) {
    int v = 0;
    const bool ok = plan[i] ? queue_push(q, i + 1) : queue_pop(q, &v);
    result[i] = ok ? 1 : 0;
    value[i] = ok && !plan[i] ? v : 0;
  }
}

}  // namespace lab06
