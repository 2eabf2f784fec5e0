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

// Task 5b's order of tiles: ticket t of tiles x tiles tiles is the t-th tile counted along the
// anti-diagonals (diagonal 0, then 1, ...; along one diagonal, from the top row down), so every tile's
// north and west neighbours have smaller tickets (no block waits for one that has not started),
// and the blocks that run at once hold the tiles of a few neighbouring diagonals: the wavefront.
// (Row-major tickets are safe too, but on a GPU that holds fewer blocks than there are tiles the
// resident blocks then sit on a few rows of tiles, and the rows below start late: README, "On a GPU".)
__device__ inline void nw_tile_of_ticket(int t, int tiles, int& ti, int& tj) {
  const int half = tiles * (tiles + 1) / 2;  // tickets of the diagonals 0 .. tiles - 1
  const bool upper = t < half;
  const int u = upper ? t : tiles * tiles - 1 - t;  // the lower triangle counted from the far corner
  // u's diagonal d: d(d + 1)/2 <= u < (d + 1)(d + 2)/2 (the root, then corrected for rounding)
  int d = int((sqrtf(8.0f * float(u) + 1.0f) - 1.0f) * 0.5f);
  while ((d + 1) * (d + 2) / 2 <= u) ++d;
  while (d * (d + 1) / 2 > u) --d;
  const int k = u - d * (d + 1) / 2;  // 0 .. d along diagonal d
  ti = upper ? k : tiles - 1 - k;
  tj = upper ? d - k : tiles - 1 - (d - k);
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
