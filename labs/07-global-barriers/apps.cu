// Lab 07, tasks 8 and 9: the paper's applications (seed 001, section VI), each with a global
// barrier between steps that depend on each other. The harness launches them cooperatively
// (cudaLaunchCooperativeKernel), so cooperative_groups' grid.sync() is the barrier.
//
// 8. bitonic_sort_grid: Batcher's network, one grid.sync() after every step (k, j).
// 9. sw_fill_grid: the Smith-Waterman matrix fill, one anti-diagonal at a time (a cell needs its
//    north-west, north and west neighbours: the two diagonals before), one grid.sync() after each.
#include <cooperative_groups.h>

#include "lab07_kernels.cuh"

namespace cg = cooperative_groups;

namespace lab07 {

// ---- 8 ------------------------------------------------------------------------------------------
__global__ void bitonic_sort_grid(unsigned* keys, int n) {
  // TODO(8): for k = 2, 4, ..., n and, inside, j = k/2, k/4, ..., 1: every pair (i, l = i ^ j) with
  // l > i is compared and exchanged (ascending when (i & k) == 0, else descending), thread i of the
  // grid taking i, i + gridDim.x * blockDim.x, ... (a grid-stride loop); then a grid.sync()
  // (cg::this_grid()) before the next step. (about 14 lines)
  (void)keys, (void)n;
}

long long bitonic_barriers(int n) {
  // TODO(9b): how many grid.sync() calls each thread of bitonic_sort_grid makes for n keys.
  (void)n;
  return 0;
}

// ---- 9 ------------------------------------------------------------------------------------------
__global__ void sw_fill_grid(const char* a, int m, const char* b, int n, int* H) {
  // TODO(9): anti-diagonal d = 2, 3, ..., m + n holds the cells (i, j), 1 <= i <= m, 1 <= j <= n,
  // with i + j = d. Thread k of the grid fills the diagonal's cells k, k + gridDim.x * blockDim.x,
  // ... with sw_cell (H is row-major, n + 1 ints a row); then a grid.sync() before the next
  // diagonal. (about 12 lines)
  (void)a, (void)m, (void)b, (void)n, (void)H;
}

long long sw_barriers(int m, int n) {
  // TODO(9b): how many grid.sync() calls each thread of sw_fill_grid makes for an m x n fill.
  (void)m, (void)n;
  return 0;
}

}  // namespace lab07
