// Lab 02 (Peterson and bakery): the lock state, the critical section and the declarations of the
// student files' functions and kernels. Provided; do not change the signatures (the harness and
// the graded tests launch these).
//
// Every lock word is an int in global memory, zero before the first launch. Read and write them
// through Ref (cuda::atomic_ref): Ref(l->flag[me]).store(1) and Ref(l->victim).load() are
// sequentially consistent by default, which is what these algorithms assume (README, "volatile is
// not ordering").
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

namespace lab02 {

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

// ---- lock state ---------------------------------------------------------------------------------

// Two threads, ids 0 and 1 (v1, v2, Peterson; seed 004, "Mutual exclusion: 2 threads").
struct TwoThreadLock {
  int flag[2];  // flag[i] != 0: thread i wants the critical section (v1, Peterson)
  int victim;   // the thread that lets the other go first (v2, Peterson)
};

// N threads (Lamport's bakery; seed 004, "Bakery algorithm").
constexpr int kMaxBakery = 32;
struct BakeryLock {
  int choosing[kMaxBakery];  // choosing[i] != 0: thread i is picking its label
  int label[kMaxBakery];     // thread i's ticket; 0 = not interested
};

// Where the threads that share a lock sit (the harness launches the matching grid):
//   kBlocks: <<<n, 1>>>      thread i is block i's only thread
//   kWarps:  <<<1, 32 n>>>   thread i is lane 0 of warp i (the other lanes return at once)
//   kLanes:  <<<1, 32>>>     thread i is lane i of one warp
enum Placement : int { kBlocks = 0, kWarps = 1, kLanes = 2 };

// This thread's id among the lock's n threads, or -1 when it does not take part. `active` is a
// bit mask of the ids that take part in this launch (a thread alone: 1 << id).
__device__ inline int participant(int placement, int n, unsigned active) {
  int me = -1;
  if (placement == kBlocks) me = threadIdx.x == 0 ? int(blockIdx.x) : -1;
  else if (placement == kWarps) me = threadIdx.x % 32 == 0 ? int(threadIdx.x / 32) : -1;
  else me = int(threadIdx.x);
  if (me < 0 || me >= n || !((active >> me) & 1u)) return -1;
  return me;
}

// ---- the critical section (provided) ------------------------------------------------------------

constexpr int kMaxLog = 256;
struct CriticalState {
  int inside;         // threads in the critical section right now (atomics only)
  int overlaps;       // entries that found another thread already inside
  int counter;        // incremented with a plain load and store: the data the lock protects
  int entries;        // critical sections completed (atomics only)
  int bad_state;      // entries where the lock's words contradicted the algorithm
  int log[kMaxLog];   // who entered, in order
};

// What a thread does while it holds the lock. `state_ok` is the lock's own check of its words,
// made by the provided kernels right after lock() returns (e.g. Peterson: flag[me] is raised).
__device__ inline void critical_section(CriticalState* cs, int me, bool state_ok) {
  if (atomicAdd(&cs->inside, 1) != 0) atomicAdd(&cs->overlaps, 1);
  if (!state_ok) atomicAdd(&cs->bad_state, 1);
  cs->counter = cs->counter + 1;  // plain: only the lock keeps this from racing
  const int k = atomicAdd(&cs->entries, 1);
  if (k < kMaxLog) cs->log[k] = me;
  atomicSub(&cs->inside, 1);
}

// ---- two_thread_locks.cu ------------------------------------------------------------------------

// Tasks 1-3: lock and unlock for thread `me` (0 or 1).
__device__ void v1_lock(TwoThreadLock* l, int me);
__device__ void v1_unlock(TwoThreadLock* l, int me);
__device__ void v2_lock(TwoThreadLock* l, int me);
__device__ void v2_unlock(TwoThreadLock* l, int me);
__device__ void peterson_lock(TwoThreadLock* l, int me);
__device__ void peterson_unlock(TwoThreadLock* l, int me);

// Provided kernels: each participating thread runs `rounds` times lock; critical_section; unlock.
__global__ void v1_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement, unsigned active);
__global__ void v2_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement, unsigned active);
__global__ void peterson_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement,
                                unsigned active);
// Task 3c (yours): Peterson for lanes 0 and 1 of one warp, <<<1, 32>>>, that completes under both
// warp models: each of the two lanes runs `rounds` critical sections.
__global__ void peterson_lanes_kernel(TwoThreadLock* l, CriticalState* cs, int rounds);

// ---- bakery.cu ----------------------------------------------------------------------------------

// Task 5: Lamport's bakery for thread `me` of n (n <= kMaxBakery).
__device__ void bakery_lock(BakeryLock* l, int me, int n);
__device__ void bakery_unlock(BakeryLock* l, int me, int n);
__global__ void bakery_kernel(BakeryLock* l, CriticalState* cs, int n, int rounds, int placement);

}  // namespace lab02
