// WRONG SOLUTION (lab 05, task 4): the look-back with blockIdx.x as the tile. Blocks start in any
// order; under reverse dispatch the blocks that run first wait for tiles whose blocks have not
// started, and cannot start until a running block finishes: the launch hangs.
// WRONG-REPLACES: lookback.cu
// WRONG-FAILS: lab05 task4b scan_lookback finishes with more tiles than fit on the GPU when blocks start in reverse order
// WRONG-MESSAGE: hang at lookback_blockidx\.cu:[0-9]+
// WRONG-MESSAGE: take the tile from atomicAdd\(tile_counter, 1\)
// WRONG-MESSAGE: polling 0x[0-9a-f]+ \(flags \(cudaMalloc #[0-9]+ \([0-9]+ bytes\)\) \+ [0-9]+\)
// WRONG-FIX:   if (threadIdx.x == 0) tile_s = blockIdx.x;  // (the mistake: the order blocks start in is not blockIdx order)\n  (void)tile_counter; =>   if (threadIdx.x == 0) tile_s = atomicAdd(tile_counter, 1u);
//
// Lab 05, task 4: a scan over many blocks in one launch, with decoupled look-back (Merrill and
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA technical report
// NVR-2016-002). Each tile publishes its own sum as soon as it has it (kAggregate), and its
// inclusive prefix once it knows it (kPrefix); a tile finds its offset by walking back over the
// tiles before it, adding aggregates until it meets a prefix. No block waits for a whole chain.
//
// Two things make it work on a GPU. The tile a block scans is taken from an atomic counter in the
// order blocks start, never from blockIdx.x: blocks may start in any order, and a block that waits
// for a tile no running block holds waits forever. And a value is published through its flag: the
// value must be visible before the flag that announces it is.
#include "lab05_kernels.cuh"

namespace lab05 {

// ---- 4 -----------------------------------------------------------------------------------------
__global__ void scan_lookback(const int* in, int n, int* out, unsigned* tile_counter, unsigned* flags,
                              int* aggregates, int* prefixes) {
  __shared__ unsigned tile_s;
  __shared__ int offset_s;
  // The tile: the next ticket, in the order the blocks get here.
  if (threadIdx.x == 0) tile_s = blockIdx.x;  // (the mistake: the order blocks start in is not blockIdx order)
  (void)tile_counter;
  __syncthreads();
  const unsigned tile = tile_s;
  const int i = int(tile * blockDim.x + threadIdx.x);
  int aggregate = 0;
  const int inclusive = block_inclusive_scan(i < n ? in[i] : 0, &aggregate);
  if (threadIdx.x == 0) {
    volatile unsigned* vflags = flags;
    volatile int* vaggregates = aggregates;
    volatile int* vprefixes = prefixes;
    int offset = 0;
    if (tile == 0) {
      vprefixes[0] = aggregate;
      __threadfence();  // the prefix is visible before the flag that announces it
      vflags[0] = kPrefix;
    } else {
      vaggregates[tile] = aggregate;
      __threadfence();
      vflags[tile] = kAggregate;
      // Look back: add aggregates until a tile's inclusive prefix is known.
      for (int j = int(tile) - 1; j >= 0; --j) {
        unsigned status;
        while ((status = vflags[j]) == kInvalid) {
        }
        __threadfence();  // the flag is read before the value it announces
        if (status == kPrefix) {
          offset += vprefixes[j];
          break;
        }
        offset += vaggregates[j];
      }
      vprefixes[tile] = offset + aggregate;
      __threadfence();
      vflags[tile] = kPrefix;
    }
    offset_s = offset;
  }
  __syncthreads();
  if (i < n) out[i] = inclusive + offset_s;
}

}  // namespace lab05
