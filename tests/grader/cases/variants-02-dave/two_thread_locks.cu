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
  const int other = 1 - me;
  Ref(l->flag[me]).store(1);
  while (Ref(l->flag[other]).load() != 0) {
  }
}

__device__ void v1_unlock(TwoThreadLock* l, int me) {
  Ref(l->flag[me]).store(0);
}

// ---- 2: v2, the victim --------------------------------------------------------------------------
__device__ void v2_lock(TwoThreadLock* l, int me) {
  Ref(l->victim).store(me);
  while (Ref(l->victim).load() == me) {
  }
}

__device__ void v2_unlock(TwoThreadLock* l, int me) {
  Ref(l->victim).store(me);
}

// ---- 3a: Peterson -------------------------------------------------------------------------------
__device__ void peterson_lock(TwoThreadLock* l, int me) {
  const int other = 1 - me;
  Ref(l->flag[me]).store(1);
  Ref(l->victim).store(me);
  while (Ref(l->flag[other]).load() != 0 && Ref(l->victim).load() == me) {
  }
}

__device__ void peterson_unlock(TwoThreadLock* l, int me) {
  Ref(l->flag[me]).store(0);
}

// ---- 3c: Peterson for two lanes of one warp -------------------------------------------------------
__global__ void peterson_lanes_kernel(TwoThreadLock* l, CriticalState* cs, int rounds) {
  const int me = int(threadIdx.x);
  if (me > 1) return;
  const int other = 1 - me;
  const unsigned both = 0x3u;  // lanes 0 and 1
  for (int r = 0; r < rounds; ++r) {
    Ref(l->flag[me]).store(1);
    Ref(l->victim).store(me);
    // The loop's exit is the same for both lanes, so neither waits at a reconvergence point
    // for the other: the lane whose turn it is runs its critical section inside the loop.
    bool waiting = true;
    while (__any_sync(both, waiting)) {
      if (waiting && (Ref(l->flag[other]).load() == 0 || Ref(l->victim).load() != me)) {
        critical_section(cs, me, Ref(l->flag[me]).load() != 0);
        Ref(l->flag[me]).store(0);
        waiting = false;
      }
    }
  }
}

// ---- 4: verdicts ------------------------------------------------------------------------------------
Verdict ordering_verdict(int ordering) {
  switch (ordering) {
    case 0: return Verdict::safe;    // flag, victim; test flag first: Peterson's lock
    case 1: return Verdict::breaks;  // victim first: the slide's counterexample
    case 2: return Verdict::breaks;  // victim first, tests swapped: same counterexample
    case 3: return Verdict::safe;    // flag first; the order of the two tests does not matter
  }
  return Verdict::unknown;
}

Verdict peterson_with_store_buffers() {
  // Both threads can buffer "flag[me] = 1; victim = me" and read the other's flag as 0.
  return Verdict::breaks;
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
