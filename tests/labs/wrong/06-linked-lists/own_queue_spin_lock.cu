// WRONG SOLUTION (lab 06, task 6): one lock over the ring, taken the way a CPU programmer would:
// spin on atomicCAS until it is yours. Every call then waits for the lock's holder; under lockstep a
// lane that won goes on to the end of the spin loop and waits there for its warp-mates, which spin
// on the lock it holds (the SIMD deadlock of lab 03), and it never releases it.
// WRONG-REPLACES: own_queue.cu
// WRONG-FAILS: lab06 task6 queue_pairs pops every value once and in order under both warp and memory models
// WRONG-MESSAGE: (deadlock|hang) at own_queue_spin_lock\.cu:[0-9]+
// WRONG-MESSAGE: If a call waits for another thread
// WRONG-FIX:   while (atomicCAS(&q[kLock], 0u, 1u) != 0u) {\n  } =>   if (atomicCAS(&q[kLock], 0u, 1u) != 0u) return false;
#include <cuda/atomic>

#include "lab06_kernels.cuh"

namespace lab06 {

namespace {
constexpr int kLock = 0, kHead = 1, kCount = 2, kSlots = 3;

__device__ bool try_lock(unsigned* q) {
  while (atomicCAS(&q[kLock], 0u, 1u) != 0u) {
  }
  __threadfence();
  return true;
}

__device__ void unlock(unsigned* q) {
  __threadfence();
  atomicExch(&q[kLock], 0u);
}
}  // namespace

// The count is also read without the lock, first: a call that would find the queue full (empty)
// returns at once and leaves the lock to the threads that can use it. Without that look, a pusher
// facing a full queue can take and release the lock again and again, just when the poppers try it.
__device__ unsigned count_of(unsigned* q) {
  return cuda::atomic_ref<unsigned, cuda::thread_scope_device>(q[kCount]).load(cuda::memory_order_relaxed);
}
__device__ void set_count(unsigned* q, unsigned n) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device>(q[kCount]).store(n, cuda::memory_order_relaxed);
}

__device__ bool queue_push(unsigned* q, int v) {
  if (count_of(q) >= kQueueCapacity || !try_lock(q)) return false;
  const unsigned count = count_of(q);
  const bool room = count < kQueueCapacity;
  if (room) {
    q[kSlots + (q[kHead] + count) % kQueueCapacity] = unsigned(v);
    set_count(q, count + 1);
  }
  unlock(q);
  return room;
}

__device__ bool queue_pop(unsigned* q, int* v) {
  if (count_of(q) == 0 || !try_lock(q)) return false;
  const unsigned count = count_of(q), head = q[kHead];
  if (count > 0) {
    *v = int(q[kSlots + head]);
    q[kHead] = (head + 1) % kQueueCapacity;
    set_count(q, count - 1);
  }
  unlock(q);
  return count > 0;
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
