// Lab 05, task 3: a scan over many blocks in three launches ("reduce, then scan"): every tile's
// sum; the exclusive scan of those sums (each tile's offset); every tile's own scan plus its
// offset. The end of each launch is the barrier between the steps (seed 004, slides "Barriers").
// block_inclusive_scan (lab05_kernels.cuh) is provided.
#include "lab05_kernels.cuh"

namespace lab05 {

// ---- 3: sums[b] = the sum of tile b ------------------------------------------------------------
__global__ void tile_sums(const int* in, int n, int* sums) {
  // TODO(3): every thread calls block_inclusive_scan with its value (0 past n) and a total; thread 0
  // writes the block's total (about 4 lines)
  (void)in;
  (void)n;
  (void)sums;
}

// ---- 3: sums[0..count) becomes its exclusive scan (one block, count <= blockDim.x) --------------
__global__ void scan_tile_sums(int* sums, int count) {
  // TODO(3): the block's inclusive scan of the sums; the exclusive scan is the inclusive one minus
  // the thread's own value (about 4 lines)
  (void)sums;
  (void)count;
}

// ---- 3: out = tile b's inclusive scan + offsets[b] -----------------------------------------------
__global__ void scan_tiles(const int* in, int n, const int* offsets, int* out) {
  // TODO(3) (about 3 lines)
  (void)in;
  (void)n;
  (void)offsets;
  (void)out;
}

}  // namespace lab05
