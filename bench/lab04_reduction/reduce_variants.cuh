// The variants lab04_reduction times beside the lab's grid reduction (reduce_sum_int32, task 7 of
// labs/04-reductions, defined in fast.cu: the reference solution's, or the student's), each
// changing one thing at a time: how the block sums are combined (Finish: a second kernel, or
// atomicAdd into the result), how a thread loads (Load), which addresses a block reads (Layout),
// block size, loads in flight. The workspace, the grid size and the 16-byte split come from
// labs/04-reductions/lab04_fast.cuh, as in fast.cu. Plain CUDA runtime only.
//
// `reduce_sum_kernel<256, 4, LastBlock, Streaming, Tiles>` does what the reference solution's
// kernel does (solutions/04-reductions/fast.cu), with the same code: its row in the table is the
// reference's twin, and the two rows show the spread between identical kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "lab04_fast.cuh"

namespace lab04 {

// ---- building blocks (the same as in solutions/04-reductions/fast.cu) ---------------------------

constexpr int kWarpSize = 32;

// The sum of v over the 32 lanes of the calling warp, returned in lane 0 (the other lanes get
// partial sums). Every lane of the warp must call it. The full mask 0xffffffff says so: since
// Volta the lanes of a warp may be at different points of the program, and the mask is what makes
// the hardware wait for all 32 before it exchanges their registers. The exchange goes register to
// register, so there is no shared memory to protect and no __syncwarp to add.
__device__ __forceinline__ unsigned warp_reduce_sum(unsigned v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The sum of v over the BLOCK threads of the calling block, returned in thread 0. Every thread of
// the block must call it (it holds a __syncthreads).
template <int BLOCK>
__device__ __forceinline__ unsigned block_reduce_sum(unsigned v) {
  static_assert(BLOCK % kWarpSize == 0 && BLOCK <= 32 * kWarpSize, "BLOCK: a multiple of 32, at most 1024");
  constexpr int kWarps = BLOCK / kWarpSize;
  __shared__ unsigned warp_sums[kWarps];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  // Warp 0 is about to read what lane 0 of every warp just wrote to shared memory: the barrier
  // makes all those writes happen, and be visible, before any of the reads.
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? warp_sums[lane] : 0u;
    v = warp_reduce_sum(v);
  }
  // A caller that calls this twice needs a __syncthreads between the calls: warp 0 may still be
  // reading warp_sums while another warp would already be overwriting it.
  return v;
}

// ---- variants, for comparison ------------------------------------------------------------------

// How the block sums become the result.
//   TwoPass    each block writes its sum to partials[]; a second, one-block kernel adds them.
//              The end of the first kernel is the grid-wide barrier.
//   LastBlock  as in the reference.
//   Atomic     each block atomicAdds its sum into *out, which the launcher zeroes first (a memset
//              before the kernel: two operations in the stream).
enum class Finish { TwoPass, LastBlock, Atomic };

// How a thread reads its 16 bytes.
//   Ldg          __ldg: the read-only data path (the input does not change during the kernel)
//   Streaming    __ldcs: "evict first" (the reference's)
//   LastUse      __ldlu: "last use"
//   NoAllocate   read-only path, and no L1 line allocated
//   Prefetch256  NoAllocate, and L2 fetches the 256 bytes around the address
enum class Load { Ldg, Streaming, LastUse, NoAllocate, Prefetch256 };

// Which uint4s a block reads.
//   Strided  a grid-stride loop over uint4s: per load, the grid reads gridDim.x x BLOCK
//            consecutive uint4s, each block BLOCK x 16 bytes of them
//   Tiles    the reference's: tiles of BLOCK x UNROLL uint4s, a grid-stride loop over tiles
//   Chunks   the same tiles, but each block takes one contiguous run of them (the grid splits
//            the tiles evenly)
enum class Layout { Strided, Tiles, Chunks };

inline const char* finish_name(Finish f) {
  return f == Finish::TwoPass ? "two-pass" : f == Finish::LastBlock ? "last-block" : "atomic";
}
inline const char* layout_name(Layout l) {
  return l == Layout::Strided ? "strided" : l == Layout::Tiles ? "tiles" : "chunks";
}
inline const char* load_name(Load l) {
  switch (l) {
    case Load::Ldg: return "ldg";
    case Load::Streaming: return "ldcs";
    case Load::LastUse: return "ldlu";
    case Load::NoAllocate: return "nc.L1::no_allocate";
    default: return "nc.L1::no_allocate.L2::256B";
  }
}

template <Load L>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (L == Load::Ldg) {
    return __ldg(p);
  } else if constexpr (L == Load::Streaming) {
    return __ldcs(p);
  } else if constexpr (L == Load::LastUse) {
    return __ldlu(p);
  } else if constexpr (L == Load::NoAllocate) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
  } else {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
  }
}

// The reference with every choice a parameter: reduce_sum_kernel<256, 4, LastBlock, Streaming,
// Tiles> does what reduce_sum_int32_kernel does.
template <int BLOCK, int UNROLL, Finish FINISH, Load LOAD, Layout LAYOUT>
__global__ void __launch_bounds__(BLOCK, 2048 / BLOCK)
    reduce_sum_kernel(const int* __restrict__ in, size_t n, unsigned* __restrict__ partials,
                      unsigned* __restrict__ ticket, int* __restrict__ out) {
  const size_t tid = size_t(blockIdx.x) * BLOCK + threadIdx.x;
  const size_t threads = size_t(gridDim.x) * BLOCK;
  const Split s = split16(in, n);
  unsigned sum = head_and_tail(in, n, s, tid);

  if constexpr (LAYOUT == Layout::Strided) {
    size_t i = tid;
    for (; i + (UNROLL - 1) * threads < s.n4; i += UNROLL * threads) {
      uint4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load16<LOAD>(s.in4 + i + u * threads);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) sum += add4(v[u]);
    }
    for (; i < s.n4; i += threads) sum += add4(load16<LOAD>(s.in4 + i));  // fewer than UNROLL steps left
  } else {
    constexpr size_t kTile = size_t(BLOCK) * UNROLL;
    const size_t tiles = s.n4 / kTile;
    size_t t, t_end, t_step;
    if constexpr (LAYOUT == Layout::Tiles) {
      t = blockIdx.x, t_end = tiles, t_step = gridDim.x;
    } else {
      t = tiles * blockIdx.x / gridDim.x, t_end = tiles * (blockIdx.x + 1) / gridDim.x, t_step = 1;
    }
    for (; t < t_end; t += t_step) {
      const uint4* p = s.in4 + t * kTile + threadIdx.x;
      uint4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load16<LOAD>(p + u * BLOCK);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) sum += add4(v[u]);
    }
    for (size_t i = tiles * kTile + tid; i < s.n4; i += threads) sum += add4(load16<LOAD>(s.in4 + i));
  }

  sum = block_reduce_sum<BLOCK>(sum);

  if constexpr (FINISH == Finish::Atomic) {
    // One atomic per block (about a thousand in all) on one word in L2. Atomics on one address
    // are serialized, but the blocks finish at different times, so they hardly queue.
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned*>(out), sum);
  } else if constexpr (FINISH == Finish::TwoPass) {
    // Nothing else: the second kernel, next in the stream, starts only when every block of this
    // one has finished, and then sees all their writes.
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
  } else {  // LastBlock: the same synchronization as the reference, see the comments there
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
      partials[blockIdx.x] = sum;
      __threadfence();
      is_last = (atomicAdd(ticket, 1u) == gridDim.x - 1);
      if (is_last) __threadfence();
    }
    __syncthreads();
    if (!is_last) return;
    unsigned v = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) v += __ldcg(partials + b);
    v = block_reduce_sum<BLOCK>(v);
    if (threadIdx.x == 0) {
      *out = int(v);
      *ticket = 0;
    }
  }
}

// TwoPass, second kernel: one block adds the `count` partial sums.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_partials_kernel(const unsigned* __restrict__ partials, int count,
                                                               int* __restrict__ out) {
  unsigned v = 0;
  for (int b = threadIdx.x; b < count; b += BLOCK) v += partials[b];
  v = block_reduce_sum<BLOCK>(v);
  if (threadIdx.x == 0) *out = int(v);
}

// The textbook version: one 4-byte load per step of a grid-stride loop, two passes.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK, 2048 / BLOCK)
    reduce_sum_scalar_kernel(const int* __restrict__ in, size_t n, unsigned* __restrict__ partials) {
  unsigned sum = 0;
  for (size_t i = size_t(blockIdx.x) * BLOCK + threadIdx.x; i < n; i += size_t(gridDim.x) * BLOCK)
    sum += unsigned(in[i]);
  sum = block_reduce_sum<BLOCK>(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <int BLOCK, int UNROLL, Finish FINISH, Load LOAD, Layout LAYOUT>
inline int reduce_sum_blocks() {
  return persistent_grid(reduce_sum_kernel<BLOCK, UNROLL, FINISH, LOAD, LAYOUT>, BLOCK);
}

// Like reduce_sum_int32, for any variant.
template <int BLOCK, int UNROLL, Finish FINISH, Load LOAD, Layout LAYOUT>
inline cudaError_t reduce_sum(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks = 0,
                              cudaStream_t stream = 0) {
  if (blocks <= 0) blocks = reduce_sum_blocks<BLOCK, UNROLL, FINISH, LOAD, LAYOUT>();
  blocks = clamp_blocks(blocks, n, size_t(BLOCK) * 4 * UNROLL, ws.capacity);
  if (blocks < 1) return cudaErrorInvalidValue;
  if constexpr (FINISH == Finish::Atomic) {
    const cudaError_t e = cudaMemsetAsync(d_out, 0, sizeof(int), stream);
    if (e != cudaSuccess) return e;
  }
  reduce_sum_kernel<BLOCK, UNROLL, FINISH, LOAD, LAYOUT>
      <<<blocks, BLOCK, 0, stream>>>(d_in, n, ws.partials, ws.ticket, d_out);
  if constexpr (FINISH == Finish::TwoPass)
    reduce_partials_kernel<BLOCK><<<1, BLOCK, 0, stream>>>(ws.partials, blocks, d_out);
  return cudaGetLastError();
}

// The textbook version's launcher.
template <int BLOCK>
inline cudaError_t reduce_sum_scalar(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks,
                                     cudaStream_t stream = 0) {
  blocks = clamp_blocks(blocks, n, BLOCK, ws.capacity);
  if (blocks < 1) return cudaErrorInvalidValue;
  reduce_sum_scalar_kernel<BLOCK><<<blocks, BLOCK, 0, stream>>>(d_in, n, ws.partials);
  reduce_partials_kernel<BLOCK><<<1, BLOCK, 0, stream>>>(ws.partials, blocks, d_out);
  return cudaGetLastError();
}

}  // namespace lab04
