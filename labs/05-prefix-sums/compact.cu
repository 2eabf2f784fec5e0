// Lab 05, task 5: stream compaction, the slides' application of prefix sums (seed 004, "Application
// of Prefix Sum": threads push work to one list, the order does not matter, and atomics are
// forbidden; and "Scatter-Gather" in the synchronization patterns). Each kept value's place in the
// output is the number of kept values before it: the exclusive scan of the keep flags.
#include "lab05_kernels.cuh"

namespace lab05 {

// ---- 5 -----------------------------------------------------------------------------------------
// keep[i] = 1 when kept(in[i]), else 0, for every i < n, whatever the grid (a grid-stride loop).
__global__ void keep_flags(const int* in, int n, int* keep) {
  // TODO(5) (about 2 lines)
  (void)in;
  (void)n;
  (void)keep;
}

// ---- 5 -----------------------------------------------------------------------------------------
// positions = the inclusive scan of keep (the harness computed it). Each kept in[i] goes to its
// place in out; no atomics.
__global__ void scatter_kept(const int* in, const int* keep, const int* positions, int n, int* out) {
  // TODO(5): a grid-stride loop; where is the kept in[i]'s place, given that positions[i] counts
  // in[i] itself? (about 2 lines)
  (void)in;
  (void)keep;
  (void)positions;
  (void)n;
  (void)out;
}

}  // namespace lab05
