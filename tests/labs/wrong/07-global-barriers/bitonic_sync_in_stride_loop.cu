// WRONG SOLUTION (lab 07, task 8): bitonic sort with its grid.sync() inside the grid-stride loop.
// A thread passes one barrier per key it handles, and the threads handle different numbers of keys
// (and skip the barrier where they skip a key): some wait at a grid barrier that the others never
// reach again.
// WRONG-REPLACES: apps.cu
// WRONG-FAILS: lab07 task8 bitonic_sort_grid sorts with a grid barrier per step
// WRONG-MESSAGE: the launch hung at a grid barrier. the simulator reported [0-9]+ problem\(s\), first: hang at bitonic_sync_in_stride_loop\.cu:[0-9]+ \(hang: threads wait at a grid barrier
// WRONG-MESSAGE: put it after the grid-stride loop over the thread's pairs, not inside it
// WRONG-FIX:         grid.sync();  // the next step reads what other blocks wrote in this one\n      }\n    } =>       }\n      grid.sync();  // the next step reads what other blocks wrote in this one\n    }
//
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
  cg::grid_group grid = cg::this_grid();
  const int stride = gridDim.x * blockDim.x;
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int l = i ^ j;
        if (l <= i) continue;  // the lower index of each pair does the compare-exchange
        const unsigned x = keys[i], y = keys[l];
        const bool ascending = (i & k) == 0;
        if ((x > y) == ascending) {
          keys[i] = y;
          keys[l] = x;
        }
        grid.sync();  // the next step reads what other blocks wrote in this one
      }
    }
}

long long bitonic_barriers(int n) {
  long long steps = 0;
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) ++steps;
  return steps;
}

// ---- 9 ------------------------------------------------------------------------------------------
__global__ void sw_fill_grid(const char* a, int m, const char* b, int n, int* H) {
  cg::grid_group grid = cg::this_grid();
  const int stride = gridDim.x * blockDim.x;
  const int w = n + 1;
  for (int d = 2; d <= m + n; ++d) {  // anti-diagonal d: the cells with i + j = d
    const int lo = d - n > 1 ? d - n : 1, hi = d - 1 < m ? d - 1 : m;
    for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i <= hi; i += stride) {
      const int j = d - i;
      H[i * w + j] = sw_cell(H[(i - 1) * w + j - 1], H[(i - 1) * w + j], H[i * w + j - 1], a[i - 1], b[j - 1]);
    }
    grid.sync();  // diagonal d + 1 reads diagonal d
  }
}

long long sw_barriers(int m, int n) { return m + n - 1; }

}  // namespace lab07
