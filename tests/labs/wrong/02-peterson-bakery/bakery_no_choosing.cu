// WRONG SOLUTION (lab 02, task 5): the bakery without the choosing flag. A thread that has read
// the labels but not yet written its own looks "not interested" (label 0) to a thread that is
// already checking, which goes in; the slow one then writes the same label and, with the smaller
// id, goes in too.
// WRONG-REPLACES: bakery.cu
// WRONG-FAILS: lab02 task5 bakery keeps mutual exclusion and progress for 3 warps
// WRONG-MESSAGE: MUTUAL EXCLUSION BROKEN
// WRONG-MESSAGE: replay: build/bin/sim/lab02 bakery --threads 3 --where warps --rounds 2 --model [a-z]+ --sched [a-z]+
//
//
// Lab 02, task 5: Lamport's bakery lock for n threads (seed 004, slides "Bakery algorithm" and
// "Bakery algorithm: GPU?").
//
// A thread raises choosing[me], takes a label one larger than every label it sees, lowers
// choosing[me], then waits for every other thread k until k is not choosing and k's (label, id)
// is not smaller than its own. Unlock gives the label back (0). Use Ref for every access to the
// lock's words (lab02_kernels.cuh).
#include "lab02_kernels.cuh"

namespace lab02 {

// ---- 5: the bakery ----------------------------------------------------------------------------
__device__ void bakery_lock(BakeryLock* l, int me, int n) {
  int highest = 0;
  for (int k = 0; k < n; ++k) {
    const int lk = Ref(l->label[k]).load();
    if (lk > highest) highest = lk;
  }
  const int mine = highest + 1;
  Ref(l->label[me]).store(mine);
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    // WRONG: no choosing flag, so no waiting for a thread that is still picking its label
    for (;;) {
      const int lk = Ref(l->label[k]).load();
      if (lk == 0 || lk > mine || (lk == mine && k > me)) break;
    }
  }
}

__device__ void bakery_unlock(BakeryLock* l, int me, int n) {
  Ref(l->label[me]).store(0);
}

// ---- provided: the kernel the harness launches (do not change) ----------------------------------
__global__ void bakery_kernel(BakeryLock* l, CriticalState* cs, int n, int rounds, int placement) {
  const int me = participant(placement, n, ~0u);
  if (me < 0) return;
  for (int r = 0; r < rounds; ++r) {
    bakery_lock(l, me, n);
    // The bakery: my label is taken and I have finished choosing while I hold the lock.
    critical_section(cs, me, Ref(l->label[me]).load() != 0 && Ref(l->choosing[me]).load() == 0);
    bakery_unlock(l, me, n);
  }
}

}  // namespace lab02
