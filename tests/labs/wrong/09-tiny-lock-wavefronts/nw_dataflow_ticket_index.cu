// WRONG SOLUTION (lab 09, task 5b): the ready flags indexed by the ticket, as if tickets were handed
// out in row-major order: tile (1, 0) has ticket 2 and waits for ready[2 - tiles], before the array.
// WRONG-REPLACES: nw.cu
// WRONG-FAILS: lab09 task5b the dataflow tiles score two sequences like the host
// WRONG-MESSAGE: index the flags by the tile
// WRONG-FIX: &ready[tile - tiles] => &ready[(ti - 1) * tiles + tj]
// WRONG-FIX: &ready[tile - 1] => &ready[ti * tiles + tj - 1]
// WRONG-FIX: &ready[tile], 1 => &ready[ti * tiles + tj], 1
// Lab 09, task 5: Needleman-Wunsch, the paper's section 6, as a data-parallel wavefront of tiles
// and as dataflow with a ready flag per tile (README.md). nw_tile (nw_tile.cuh) computes one tile.
#include "nw_tile.cuh"

// ---- task 5a: one launch per anti-diagonal of tiles ---------------------------------------------------
// Block k of the launch for tile diagonal td computes the k-th tile (ti, tj) with ti + tj == td.
__global__ void nw_diagonal(int* S, const int* a, const int* b, int n, int td) {
  const int tiles = n / kNwTile;
  // TODO(5a) this block's tile on diagonal td, then nw_tile (about 3 lines)
  const int ti = max(0, td - (tiles - 1)) + int(blockIdx.x);
  const int tj = td - ti;
  nw_tile(S, a, b, n, ti, tj);
}

void nw_wavefront(int* S, const int* a, const int* b, int n) {
  const int tiles = n / kNwTile;
  // TODO(5a) one launch of nw_diagonal per tile diagonal, as many blocks as it has tiles
  // (about 4 lines)
  for (int td = 0; td < 2 * tiles - 1; ++td) {
    const int count = td < tiles ? td + 1 : 2 * tiles - 1 - td;
    nw_diagonal<<<count, kNwTile>>>(S, a, b, n, td);
  }
}

// ---- task 5b: dataflow, one launch ------------------------------------------------------------------------
__global__ void nw_dataflow(int* S, const int* a, const int* b, int n, int* ready, int* next_tile) {
  __shared__ int tile;
  const int tiles = n / kNwTile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1);  // tickets in the order blocks start
  __syncthreads();
  int ti, tj;
  nw_tile_of_ticket(tile, tiles, ti, tj);  // tiles along the anti-diagonals (nw_tile.cuh, README)
  // TODO(5b) wait until the tiles north and west of (ti, tj) are ready, compute the tile, then
  // raise ready[ti * tiles + tj] so that the tiles south and east may start (about 8 lines)
  if (threadIdx.x == 0) {
    if (ti > 0)
      while (ld_acquire_gpu(&ready[tile - tiles]) == 0) {
      }
    if (tj > 0)
      while (ld_acquire_gpu(&ready[tile - 1]) == 0) {
      }
  }
  __syncthreads();              // the block's other threads read the neighbours' cells after thread 0's acquire
  nw_tile(S, a, b, n, ti, tj);  // (it ends with a __syncthreads: every cell of the tile is written)
  if (threadIdx.x == 0) st_release_gpu(&ready[tile], 1);
}
