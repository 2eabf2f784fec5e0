// WRONG SOLUTION (lab 06, task 6): one lock over the ring, tried once with atomicCAS (it never
// waits), but taken by every call, also by one that then finds the queue full or empty: two atomics
// for a call that changes nothing. One thread alone shows it: the ninth call, a push on a full
// queue, takes two atomics where the contract allows none.
// WRONG-REPLACES: own_queue.cu
// WRONG-FAILS: lab06 task6 queue_push and queue_pop keep a FIFO of 8 values for one thread
// WRONG-MESSAGE: call 9 of one thread alone \(a push that found the queue full\) took 2 atomic operation
// WRONG-MESSAGE: return false without an atomic when it is full
// WRONG-FIX: __device__ bool queue_push(unsigned* q, int v) {\n  if (!try_lock(q)) return false; => __device__ bool queue_push(unsigned* q, int v) {\n  if (count_of(q) >= kQueueCapacity || !try_lock(q)) return false;
// WRONG-FIX: __device__ bool queue_pop(unsigned* q, int* v) {\n  if (!try_lock(q)) return false; => __device__ bool queue_pop(unsigned* q, int* v) {\n  if (count_of(q) == 0 || !try_lock(q)) return false;
#include <cuda/atomic>

#include "lab06_kernels.cuh"

namespace lab06 {

namespace {
constexpr int kLock = 0, kHead = 1, kCount = 2, kSlots = 3;

__device__ bool try_lock(unsigned* q) {
  if (atomicCAS(&q[kLock], 0u, 1u) != 0u) return false;
  __threadfence();
  return true;
}

__device__ void unlock(unsigned* q) {
  __threadfence();
  atomicExch(&q[kLock], 0u);
}
}  // namespace

__device__ unsigned count_of(unsigned* q) {
  return cuda::atomic_ref<unsigned, cuda::thread_scope_device>(q[kCount]).load(cuda::memory_order_relaxed);
}
__device__ void set_count(unsigned* q, unsigned n) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device>(q[kCount]).store(n, cuda::memory_order_relaxed);
}

__device__ bool queue_push(unsigned* q, int v) {
  if (!try_lock(q)) return false;
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
  if (!try_lock(q)) return false;
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
