// WRONG SOLUTION (lab 06, task 6): the reference's ring of turn words without its four fences.
// The turn word hands each slot from its pusher to its popper and back, but nothing orders the value
// with the turn: a popper that sees "full" may read the slot before the value arrives, and a push
// may overwrite a value its popper has not read yet. The race checker reports the value's write and
// read as unordered.
// WRONG-REPLACES: own_queue.cu
// WRONG-FAILS: lab06 task6 queue_pairs pops every value once and in order under both warp and memory models
// WRONG-MESSAGE: race at own_queue_no_fences\.cu:[0-9]+
// WRONG-MESSAGE: needs a release on the handing side and\s+an acquire on the taking side
// WRONG-FIX:   q[kValue + slot] = unsigned(v);\n  *(volatile =>   __threadfence();\n  q[kValue + slot] = unsigned(v);\n  __threadfence();\n  *(volatile
// WRONG-FIX:   *v = int(q[kValue + slot]);\n  *(volatile =>   __threadfence();\n  *v = int(q[kValue + slot]);\n  __threadfence();\n  *(volatile
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
  q[kValue + slot] = unsigned(v);
  *(volatile unsigned*)&q[kTurn + slot] = 2 * lap + 1;
  return true;
}

__device__ bool queue_pop(unsigned* q, int* v) {
  const unsigned p = *(volatile unsigned*)&q[kHead];
  const unsigned slot = p % kQueueCapacity, lap = p / kQueueCapacity;
  if (*(volatile unsigned*)&q[kTurn + slot] != 2 * lap + 1) return false;  // empty, or the head moved on
  if (atomicCAS(&q[kHead], p, p + 1) != p) return false;                    // another pop took p
  *v = int(q[kValue + slot]);
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
