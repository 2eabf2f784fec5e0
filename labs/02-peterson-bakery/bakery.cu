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
  // TODO(5): choosing, label = 1 + the largest label, not choosing; then for every other k: wait
  // while k is choosing, then while k holds a label and (label[k], k) < (mine, me) (about 20 lines)
}

__device__ void bakery_unlock(BakeryLock* l, int me, int n) {
  // TODO(5): give the label back (about 1 line)
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
