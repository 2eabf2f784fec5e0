// Lab 09, task 5: Needleman-Wunsch (provided; nw.cu includes it). The paper's section 6: the score
// S(i, j) = max(S(i-1, j-1) + p(i, j), S(i-1, j) - k, S(i, j-1) - k) of two sequences a and b
// (Equation 1), where p(i, j) rewards a match of a[i-1] and b[j-1]; row 0 and column 0 hold the
// gap penalties. Every cell needs its north, west and north-west neighbours, so cells on one
// anti-diagonal are independent. The grid is cut into kNwTile x kNwTile tiles; one block of
// kNwTile threads computes a tile (nw_tile), anti-diagonal by anti-diagonal, once the tiles north
// and west of it are done.
#pragma once

#include "lab09_kernels.cuh"

// Acquire load and release store at GPU scope: a flag one block publishes to another.
__device__ inline int ld_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void st_release_gpu(int* p, int v) {
  asm volatile("st.release.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Tile (ti, tj) of S ((n + 1) x (n + 1), row-major), by the kNwTile threads of one block: thread r
// owns row ti * kNwTile + r + 1 of the tile and computes its cells one anti-diagonal at a time.
__device__ inline void nw_tile(int* S, const int* a, const int* b, int n, int ti, int tj) {
  const int r = int(threadIdx.x);
  const int i = ti * kNwTile + r + 1;
  for (int d = 0; d < 2 * kNwTile - 1; ++d) {
    const int c = d - r;
    if (c >= 0 && c < kNwTile) {
      const int j = tj * kNwTile + c + 1;
      const int diag = S[(i - 1) * (n + 1) + j - 1] + nw_match(a[i - 1], b[j - 1]);
      const int up = S[(i - 1) * (n + 1) + j] - kNwGap;
      const int left = S[i * (n + 1) + j - 1] - kNwGap;
      S[i * (n + 1) + j] = max(diag, max(up, left));
    }
    __syncthreads();
  }
}
