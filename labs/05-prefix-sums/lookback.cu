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
// flags, aggregates and prefixes have one entry per tile; flags are kInvalid at launch.
__global__ void scan_lookback(const int* in, int n, int* out, unsigned* tile_counter, unsigned* flags,
                              int* aggregates, int* prefixes) {
  __shared__ unsigned tile_s;
  __shared__ int offset_s;
  // TODO(4): thread 0 takes the block's tile from *tile_counter (atomicAdd) and shares it through
  // tile_s (about 3 lines)
  (void)tile_counter;
  const unsigned tile = 0;  // (replace)
  const int i = int(tile * blockDim.x + threadIdx.x);
  int aggregate = 0;
  const int inclusive = block_inclusive_scan(i < n ? in[i] : 0, &aggregate);
  // TODO(4): thread 0 publishes the tile: tile 0 its prefix (= its aggregate) with kPrefix, any other
  // tile its aggregate with kAggregate; then looks back over tiles tile - 1, tile - 2, ...: wait while
  // a flag is kInvalid, add an aggregate and go on, or add a prefix and stop; then publishes
  // offset + aggregate as the tile's prefix (kPrefix) and leaves the offset in offset_s. A value is
  // published through its flag: what must be true of the value when another block sees the flag?
  // Read flags, aggregates and prefixes through volatile pointers. (about 30 lines)
  (void)flags;
  (void)aggregates;
  (void)prefixes;
  (void)inclusive;
  (void)aggregate;
  (void)&offset_s;
  (void)&tile_s;
  // TODO(4): every thread writes inclusive + the offset to out[i] when i < n (about 2 lines)
  (void)out;
}

}  // namespace lab05
