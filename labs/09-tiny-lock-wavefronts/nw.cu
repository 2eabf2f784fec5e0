// Lab 09, task 5: Needleman-Wunsch, the paper's section 6, as a data-parallel wavefront of tiles
// and as dataflow with a ready flag per tile (README.md). nw_tile (nw_tile.cuh) computes one tile.
#include "nw_tile.cuh"

// ---- task 5a: one launch per anti-diagonal of tiles ---------------------------------------------------
// Block k of the launch for tile diagonal td computes the k-th tile (ti, tj) with ti + tj == td.
__global__ void nw_diagonal(int* S, const int* a, const int* b, int n, int td) {
  [[maybe_unused]] const int tiles = n / kNwTile;
  // TODO(5a) this block's tile on diagonal td, then nw_tile (about 3 lines)
}

void nw_wavefront(int* S, const int* a, const int* b, int n) {
  [[maybe_unused]] const int tiles = n / kNwTile;
  // TODO(5a) one launch of nw_diagonal per tile diagonal, as many blocks as it has tiles
  // (about 4 lines; host code: no bare min/max here, README hint 5a)
}

// ---- task 5b: dataflow, one launch ------------------------------------------------------------------------
__global__ void nw_dataflow(int* S, const int* a, const int* b, int n, int* ready, int* next_tile) {
  __shared__ int tile;
  [[maybe_unused]] const int tiles = n / kNwTile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1);  // tickets in the order blocks start
  __syncthreads();
  int ti, tj;
  nw_tile_of_ticket(tile, tiles, ti, tj);  // tiles along the anti-diagonals (nw_tile.cuh, README)
  // TODO(5b) wait until the tiles north and west of (ti, tj) are ready, compute the tile, then
  // raise ready[ti * tiles + tj] so that the tiles south and east may start (about 8 lines)
}
