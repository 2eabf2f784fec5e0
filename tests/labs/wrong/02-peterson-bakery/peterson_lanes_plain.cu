// WRONG SOLUTION (lab 02, task 3c): the two lanes take task 3a's lock as two threads would. Under
// its they finish; under lockstep the lane that loses spins in peterson_lock while its warp-mate,
// which won, waits at the reconvergence point after the loop: the warp never runs the winner's
// critical section and unlock (task 3b's SIMD deadlock). The fixed twin is the advice applied: one
// loop while either lane still wants in, the lane that may enter running its critical section and
// unlock inside it.
// WRONG-REPLACES: two_thread_locks.cu
// WRONG-FAILS: lab02 task3c peterson_lanes_kernel completes under both warp models
// WRONG-MESSAGE: stuck under lockstep: the warp runs one path at a time
// WRONG-MESSAGE: __any_sync\(0x3u, waiting\)
// WRONG-FIX:   for (int r = 0; r < rounds; ++r) {\n    peterson_lock(l, me);\n    critical_section(cs, me, Ref(l->flag[me]).load() != 0);\n    peterson_unlock(l, me);\n  } => const int other = 1 - me;\n  for (int r = 0; r < rounds; ++r) {\n    Ref(l->flag[me]).store(1);\n    Ref(l->victim).store(me);\n    bool waiting = true;\n    while (__any_sync(0x3u, waiting)) {\n      if (waiting && (Ref(l->flag[other]).load() == 0 || Ref(l->victim).load() != me)) {\n        critical_section(cs, me, Ref(l->flag[me]).load() != 0);\n        peterson_unlock(l, me);\n        waiting = false;\n      }\n    }\n  }
//
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
  for (int r = 0; r < rounds; ++r) {
    peterson_lock(l, me);
    critical_section(cs, me, Ref(l->flag[me]).load() != 0);
    peterson_unlock(l, me);
  }
}

// ---- 4: verdicts ------------------------------------------------------------------------------------
Verdict ordering_verdict(int ordering) {
  switch (ordering) {
    case 0: return Verdict::safe;    // flag, victim; test flag first: Peterson's lock
    case 1: return Verdict::breaks;  // victim first: the slide's counterexample
    case 2: return Verdict::breaks;  // victim first, tests swapped: same counterexample
    case 3: return Verdict::safe;    // flag first; the order of the two tests does not matter
    case 4: return Verdict::safe;    // Peterson's lock, victim naming the thread given way to (turn)
    case 5: return Verdict::breaks;  // victim first again: ordering 1's counterexample
    case 6: return Verdict::breaks;  // the second thread names the first in victim and never waits
    case 7: return Verdict::safe;    // ordering 4 with the tests swapped
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
