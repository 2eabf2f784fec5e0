// WRONG SOLUTION (lab 05, task 5): the scatter writes every value whose position is past 0, kept or
// not. A value that is not kept has the same positions[i] as the kept value before it, so both
// write that place of out (a race), and an even value may be left there.
// WRONG-REPLACES: compact.cu
// WRONG-FAILS: lab05 task5 compact keeps the odd values in order by scan and scatter
// WRONG-MESSAGE: race at compact_scatter_unkept\.cu:[0-9]+
// WRONG-MESSAGE: write only the kept values
//
// Lab 05, task 5: stream compaction, the slides' application of prefix sums (seed 004, "Application
// of Prefix Sum": threads push work to one list, the order does not matter, and atomics are
// forbidden; and "Scatter-Gather" in the synchronization patterns). Each kept value's place in the
// output is the number of kept values before it: the exclusive scan of the keep flags.
#include "lab05_kernels.cuh"

namespace lab05 {

// ---- 5 -----------------------------------------------------------------------------------------
__global__ void keep_flags(const int* in, int n, int* keep) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    keep[i] = kept(in[i]) ? 1 : 0;
}

// ---- 5 -----------------------------------------------------------------------------------------
__global__ void scatter_kept(const int* in, const int* keep, const int* positions, int n, int* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (positions[i] > 0) out[positions[i] - 1] = in[i];
}

}  // namespace lab05
