// Lab 05, task 3: a scan over many blocks in three launches ("reduce, then scan"): every tile's
// sum; the exclusive scan of those sums (each tile's offset); every tile's own scan plus its
// offset. The end of each launch is the barrier between the steps (seed 004, slides "Barriers").
// block_inclusive_scan (lab05_kernels.cuh) is provided.
#include "lab05_kernels.cuh"

namespace lab05 {

// ---- 3: sums[b] = the sum of tile b ------------------------------------------------------------
__global__ void tile_sums(const int* in, int n, int* sums) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int total = 0;
  block_inclusive_scan(i < n ? in[i] : 0, &total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// ---- 3: sums[0..count) becomes its exclusive scan (one block, count <= blockDim.x) --------------
__global__ void scan_tile_sums(int* sums, int count) {
  const int t = threadIdx.x;
  const int v = t < count ? sums[t] : 0;
  const int inclusive = block_inclusive_scan(v);
  if (t < count) sums[t] = inclusive - v;
}

// ---- 3: out = tile b's inclusive scan + offsets[b] -----------------------------------------------
__global__ void scan_tiles(const int* in, int n, const int* offsets, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int inclusive = block_inclusive_scan(i < n ? in[i] : 0);
  if (i < n) out[i] = inclusive + offsets[blockIdx.x];
}

}  // namespace lab05
