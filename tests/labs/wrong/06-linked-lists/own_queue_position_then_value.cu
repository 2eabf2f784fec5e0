// WRONG SOLUTION (lab 06, task 6): a ring with a head and a tail counter and nothing else. A push
// takes a position (atomicCAS on the tail), then writes the value; a pop sees the tail past its
// position, takes it, then reads. Between a push's atomicCAS and its write, a pop can take that
// position and read the slot before the value is there (an old value, or 0); and a push can write
// a slot whose popper took its position but has not read it yet. Alone, one thread is fine.
// WRONG-REPLACES: own_queue.cu
// WRONG-FAILS: lab06 task6 queue_pairs pops every value once and in order under both warp and memory models
// WRONG-MESSAGE: (was popped [02-9] times|a value no thread pushed|not FIFO)
// WRONG-MESSAGE: Taking a position is not writing a value
#include "lab06_kernels.cuh"

namespace lab06 {

namespace {
constexpr int kTail = 0, kHead = 1, kValue = 2;
}  // namespace

__device__ bool queue_push(unsigned* q, int v) {
  const unsigned p = *(volatile unsigned*)&q[kTail];
  if (p - *(volatile unsigned*)&q[kHead] >= kQueueCapacity) return false;  // full
  if (atomicCAS(&q[kTail], p, p + 1) != p) return false;                   // another push took p
  __threadfence();
  *(volatile unsigned*)&q[kValue + p % kQueueCapacity] = unsigned(v);
  return true;
}

__device__ bool queue_pop(unsigned* q, int* v) {
  const unsigned p = *(volatile unsigned*)&q[kHead];
  if (p == *(volatile unsigned*)&q[kTail]) return false;  // empty
  if (atomicCAS(&q[kHead], p, p + 1) != p) return false;  // another pop took p
  __threadfence();
  *v = int(*(volatile unsigned*)&q[kValue + p % kQueueCapacity]);
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
