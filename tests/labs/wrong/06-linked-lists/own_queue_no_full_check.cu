// WRONG SOLUTION (lab 06, task 6): the ring of turn words whose push checks only that the tail has
// not moved on, not that the slot's value of the last lap was popped: a push into a full queue
// writes over the oldest value, which is lost. One thread alone shows it: the ninth push succeeds.
// WRONG-REPLACES: own_queue.cu
// WRONG-FAILS: lab06 task6 queue_push and queue_pop keep a FIFO of 8 values for one thread
// WRONG-MESSAGE: the push of 9 at step 9 with 8 value\(s\) in the queue returned true \(capacity 8\)
// WRONG-MESSAGE: returns false at 8
// WRONG-FIX:   if (*(volatile unsigned*)&q[kTurn + slot] > 2 * lap) return false;  // the tail moved on => if (*(volatile unsigned*)&q[kTurn + slot] != 2 * lap) return false;
#include "lab06_kernels.cuh"

namespace lab06 {

namespace {
constexpr int kTail = 0, kHead = 1, kTurn = 2, kValue = 2 + kQueueCapacity;
}  // namespace

__device__ bool queue_push(unsigned* q, int v) {
  const unsigned p = *(volatile unsigned*)&q[kTail];
  const unsigned slot = p % kQueueCapacity, lap = p / kQueueCapacity;
  if (*(volatile unsigned*)&q[kTurn + slot] > 2 * lap) return false;  // the tail moved on
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
