// Lab 06, task 6: a bounded queue of your own design (README, task 6).
//
// The contract is written above queue_push in lab06_kernels.cuh: a FIFO of at most 8 values that
// lanes of one warp, warps and blocks push to and pop from at once, under both warp models and both
// memory models; at most two atomics for a call that succeeds and none for one that fails; calls
// that never wait for another thread; 32 words of memory, 0 before the launch. The lists of tasks 1
// and 2 each break a rule of it: which?
#include "lab06_kernels.cuh"

namespace lab06 {

__device__ bool queue_push(unsigned* q, int v) {
  // TODO(6): put v at the tail; return false when the queue is full (or another thread is in the way).
  (void)q;
  (void)v;
  return false;
}

__device__ bool queue_pop(unsigned* q, int* v) {
  // TODO(6): take the value at the head into *v; return false when the queue is empty (or another
  // thread is in the way).
  (void)q;
  (void)v;
  return false;
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
