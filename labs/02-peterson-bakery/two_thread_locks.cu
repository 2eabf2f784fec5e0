// Lab 02, tasks 1-4: mutual exclusion for two threads with only loads and stores (seed 004,
// slides "Mutual exclusion: 2 threads", v1, v2 and "Peterson's lock").
//
// 1.  v1: a flag per thread. 2. v2: one victim word. 3a. Peterson: both.
// 3c. Peterson for two lanes of one warp that completes under both warp models.
// 4.  Your verdicts on your four orderings of Peterson's lock, and on store buffers.
//
// Read and write the lock words through Ref (lab02_kernels.cuh): Ref(l->flag[me]).store(1),
// Ref(l->victim).load(). Thread ids are 0 and 1; the other thread is 1 - me.
#include "lab02.h"
#include "lab02_kernels.cuh"

namespace lab02 {

// ---- 1: v1, flags -------------------------------------------------------------------------------
__device__ void v1_lock(TwoThreadLock* l, int me) {
  // TODO(1): raise my flag, then wait while the other thread's flag is up (about 4 lines)
}

__device__ void v1_unlock(TwoThreadLock* l, int me) {
  // TODO(1): lower my flag (about 1 line)
}

// ---- 2: v2, the victim --------------------------------------------------------------------------
__device__ void v2_lock(TwoThreadLock* l, int me) {
  // TODO(2): make myself the victim, then wait while I am still the victim (about 3 lines)
}

__device__ void v2_unlock(TwoThreadLock* l, int me) {
  // TODO(2): as on the slide, unlock writes victim = me (about 1 line)
}

// ---- 3a: Peterson -------------------------------------------------------------------------------
__device__ void peterson_lock(TwoThreadLock* l, int me) {
  // TODO(3a): flag, victim, then wait while the other wants in and I am the victim (about 5 lines)
}

__device__ void peterson_unlock(TwoThreadLock* l, int me) {
  // TODO(3a): (about 1 line)
}

// ---- 3c: Peterson for two lanes of one warp -------------------------------------------------------
__global__ void peterson_lanes_kernel(TwoThreadLock* l, CriticalState* cs, int rounds) {
  // TODO(3c): lanes 0 and 1 (the others return) each run `rounds` times: Peterson's doorway,
  // then critical_section(cs, me, <my flag is up>) and the unlock, in a loop whose exit is the
  // same for both lanes (__any_sync), so that neither waits at a reconvergence point for a lane
  // that spins (about 14 lines)
}

// ---- 4: verdicts ------------------------------------------------------------------------------------
Verdict ordering_verdict(int ordering) {
  // TODO(4a): Verdict::safe or Verdict::breaks for each of your four orderings (lab02.h lists all
  // eight; `lab02 orderings` names yours: 0-3 without SYNCLAB_STUDENT); work them out on paper
  // first, then compare with `lab02 orderings` (about 6 lines)
  (void)ordering;
  return Verdict::unknown;
}

Verdict peterson_with_store_buffers() {
  // TODO(4b): safe or breaks? (about 1 line; README, "What the hardware may reorder")
  return Verdict::unknown;
}

// ---- provided: the kernels the harness launches (do not change) -------------------------------------
__global__ void v1_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement, unsigned active) {
  const int me = participant(placement, 2, active);
  if (me < 0) return;
  for (int r = 0; r < rounds; ++r) {
    v1_lock(l, me);
    critical_section(cs, me, Ref(l->flag[me]).load() != 0);  // v1: my flag is up while I hold it
    v1_unlock(l, me);
  }
}

__global__ void v2_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement, unsigned active) {
  const int me = participant(placement, 2, active);
  if (me < 0) return;
  for (int r = 0; r < rounds; ++r) {
    v2_lock(l, me);
    critical_section(cs, me, Ref(l->victim).load() != me);  // v2: the other thread is the victim
    v2_unlock(l, me);
  }
}

__global__ void peterson_kernel(TwoThreadLock* l, CriticalState* cs, int rounds, int placement,
                                unsigned active) {
  const int me = participant(placement, 2, active);
  if (me < 0) return;
  for (int r = 0; r < rounds; ++r) {
    peterson_lock(l, me);
    critical_section(cs, me, Ref(l->flag[me]).load() != 0);  // Peterson: my flag is up
    peterson_unlock(l, me);
  }
}

}  // namespace lab02
