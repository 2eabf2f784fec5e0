// Lab 05 (prefix sums): the kernels of the student files, declared for the harness, and the
// provided device helpers they may use. Provided; do not change the signatures (the harness and
// the graded tests launch these).
//
// An inclusive scan turns x0 x1 x2 ... into x0, x0+x1, x0+x1+x2, ...; an exclusive scan into
// 0, x0, x0+x1, ... (seed 004, slides "Prefix Sum": 4 3 9 3 5 7 3 2 gives 4 7 16 19 24 31 34 36,
// or 0 4 7 16 19 24 31 34). Tasks 1 and 2 scan each block's segment a[b * n .. (b + 1) * n) on its
// own (n = blockDim.x, a power of two); tasks 3 and 4 scan the whole array across blocks.
#pragma once

#include <cuda_runtime.h>

namespace lab05 {

// ---- task 1 (hillis.cu): Hillis-Steele, n threads for n values, log2(n) levels -----------------
// In place on global memory: after the kernel a[b * n + t] holds the inclusive scan of the block's
// segment up to t.
__global__ void scan_hillis_racy(int* a);   // provided: the slides' in-place version
__global__ void scan_hillis_fixed(int* a);  // 1a: the same, without the race
// 1b: out[b * n + t] = inclusive scan of in's segment, through two __shared__ buffers, one barrier
// per level.
__global__ void scan_hillis_double(const int* in, int* out);

// ---- task 2 (blelloch.cu): the work-efficient scan -----------------------------------------------
// out[b * n + t] = exclusive scan of in's segment (n = blockDim.x, a power of two), with an
// up-sweep and a down-sweep over a __shared__ array.
__global__ void scan_blelloch(const int* in, int* out);
// 2b: the same scan without bank conflicts, or nearly: scan_blelloch's strided levels send the
// threads of a warp to the same banks; lay the segment out in a __shared__ array so that they meet
// different ones (Harris, Sengupta and Owens, GPU Gems 3, ch. 39.2.3).
__global__ void scan_blelloch_padded(const int* in, int* out);

// ---- task 3 (multiblock.cu): reduce, then scan ----------------------------------------------------
// Tiles of blockDim.x values: tile b is in[b * blockDim.x ..), the last one may be short (n is any
// size). Three launches: tile_sums<<<tiles, T>>>, scan_tile_sums<<<1, T>>> (tiles <= T), then
// scan_tiles<<<tiles, T>>>: out = the inclusive scan of in[0..n).
__global__ void tile_sums(const int* in, int n, int* sums);          // sums[b] = sum of tile b
__global__ void scan_tile_sums(int* sums, int count);                // sums becomes its exclusive scan
__global__ void scan_tiles(const int* in, int n, const int* offsets, int* out);  // tile's scan + offsets[b]

// ---- task 4 (lookback.cu): one pass, decoupled look-back ------------------------------------------
// The status of a tile, in flags[tile] (all kInvalid before the launch).
enum TileStatus : unsigned {
  kInvalid = 0,    // nothing published yet
  kAggregate = 1,  // aggregates[tile] holds the sum of the tile's own values
  kPrefix = 2,     // prefixes[tile] holds the inclusive prefix: the sum of every value up to the
                   // tile's end
};
// out = the inclusive scan of in[0..n), in one launch of ceil(n / blockDim.x) blocks. *tile_counter
// is 0 before the launch; each block takes its tile from it.
__global__ void scan_lookback(const int* in, int n, int* out, unsigned* tile_counter, unsigned* flags,
                              int* aggregates, int* prefixes);

// ---- task 5 (compact.cu): stream compaction by scan and scatter -----------------------------------
// Keep the odd values of in[0..n), in their order.
__host__ __device__ inline bool kept(int v) { return v % 2 != 0; }
// 5: keep[i] = 1 when in[i] is kept, else 0 (one thread per value, any grid).
__global__ void keep_flags(const int* in, int n, int* keep);
// 5: positions = the inclusive scan of keep (the harness computes it between the two kernels); each
// kept in[i] goes to out[positions[i] - 1]. No atomics.
__global__ void scatter_kept(const int* in, const int* keep, const int* positions, int n, int* out);

// ---- provided: a block's inclusive scan with warp shuffles ----------------------------------------
// Every thread of the block calls it (blockDim.x a multiple of 32, at most 1024) with its value v;
// it returns the inclusive scan of the block's values at this thread, and sets *total (when not
// null) to the block's sum in every thread. Uses one __shared__ array and two __syncthreads().
__device__ __forceinline__ int block_inclusive_scan(int v, int* total = nullptr) {
  __shared__ int warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
  for (int d = 1; d < 32; d *= 2) {  // the warp's scan, register to register
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= unsigned(d)) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  int before = 0, sum = 0;
  for (unsigned w = 0; w < warps; ++w) {  // (at most 32 words: cheaper than another scan)
    if (w < warp) before += warp_totals[w];
    sum += warp_totals[w];
  }
  __syncthreads();  // warp_totals may be written again by the next call
  if (total) *total = sum;
  return v + before;
}

}  // namespace lab05
