// Lab 04's reference grid-wide sum reduction of int32 values, written to be read and to be fast,
// and the variants the benchmark compares it with (bench/lab04_reduction/lab04_reduction.cu,
// results in bench/results/lab04_reduction.md).
//
//   lab04::ReduceWorkspace ws;
//   CHECK(lab04::reduce_workspace_create(&ws));
//   const int blocks = lab04::reduce_sum_int32_blocks();   // once: the grid for this GPU
//   CHECK(lab04::reduce_sum_int32(d_in, n, d_out, ws, blocks));   // *d_out = d_in[0] + ... + d_in[n-1]
//   lab04::reduce_workspace_destroy(&ws);
//
// The result is the int32 sum with wrap-around (two's complement, modulo 2^32): what adding int32
// values on the GPU gives, and what cub::DeviceReduce::Sum(int*, int*) returns. Inside, values are
// added as `unsigned`, because unsigned overflow wraps by definition in C++ while signed overflow
// is undefined; both give the same bits.
//
// How one launch of the reference works (the order the lab teaches it in):
//   1. Each thread adds its share of the input into one register. Loads are 16 bytes wide (a
//      uint4 holds 4 ints), each thread issues 4 of them before it adds any (so that enough bytes
//      are in flight to keep the memory busy), and they are "streaming" loads (__ldcs: every byte
//      is read once, so the caches need not keep it).
//   2. Each warp adds its 32 registers with shuffles (__shfl_down_sync): no shared memory.
//   3. Each block adds its warps' sums through shared memory: one __syncthreads.
//   4. Last block done: each block writes its sum to partials[], __threadfence(), and takes a
//      ticket with atomicAdd; the block that draws the last ticket knows that every other sum is
//      written, adds them and writes the result. One launch.
// The grid is "persistent": as many blocks as the GPU holds at once (SMs x blocks per SM), each
// looping over the input, so the last block adds only about a thousand partial sums.
//
// The variants below the reference change one thing at a time: how the block sums are combined
// (Finish: a second kernel, or atomicAdd into the result), how a thread loads (Load), which
// addresses a block reads (Layout), block size, loads in flight.
//
// Plain CUDA runtime only; this header is self-contained.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace lab04 {

// ---- building blocks ---------------------------------------------------------------------------

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

__device__ __forceinline__ unsigned add4(uint4 v) { return v.x + v.y + v.z + v.w; }

// The input seen as a scalar head (the ints before the first 16-byte boundary: cudaMalloc'd
// memory starts on one, d_in + 1 does not), n4 uint4s, and a scalar tail (fewer than 4 ints).
struct Split {
  const uint4* in4;
  size_t head, n4, tail;  // tail: index of the first int after the uint4s
};

__device__ __forceinline__ Split split16(const int* in, size_t n) {
  const size_t misaligned = (reinterpret_cast<uintptr_t>(in) / sizeof(int)) % 4;
  const size_t head = misaligned == 0 ? 0 : (n < 4 - misaligned ? n : 4 - misaligned);
  const size_t n4 = (n - head) / 4;
  return Split{reinterpret_cast<const uint4*>(in + head), head, n4, head + 4 * n4};
}

// The scalar part of thread tid's share: at most one int of the head and one of the tail.
__device__ __forceinline__ unsigned head_and_tail(const int* in, size_t n, const Split& s, size_t tid) {
  unsigned sum = 0;
  if (tid < s.head) sum += unsigned(in[tid]);
  if (tid < n - s.tail) sum += unsigned(in[s.tail + tid]);
  return sum;
}

// Scratch memory for the block sums and the ticket. Create once, reuse for every call (not by
// two calls running at the same time: they would share the ticket).
struct ReduceWorkspace {
  unsigned* partials = nullptr;  // one per block
  unsigned* ticket = nullptr;    // last-block-done's counter; 0 between launches
  int capacity = 0;              // the most blocks a launch may have
};

inline cudaError_t reduce_workspace_create(ReduceWorkspace* ws, int capacity = 1 << 16) {
  cudaError_t e = cudaMalloc(&ws->partials, size_t(capacity) * sizeof(unsigned));
  if (e == cudaSuccess) e = cudaMalloc(&ws->ticket, sizeof(unsigned));
  if (e == cudaSuccess) e = cudaMemset(ws->ticket, 0, sizeof(unsigned));
  ws->capacity = e == cudaSuccess ? capacity : 0;
  return e;
}

inline void reduce_workspace_destroy(ReduceWorkspace* ws) {
  cudaFree(ws->partials);
  cudaFree(ws->ticket);
  *ws = ReduceWorkspace{};
}

// SMs x how many blocks of `kernel` fit on one SM at once (0 if a query fails). The queries cost
// microseconds and a 1 GiB sum about 230 us, so ask once and pass the number to every call.
template <typename Kernel>
inline int persistent_grid(Kernel kernel, int block) {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0) != cudaSuccess)
    return 0;
  return sms * per_sm;
}

// No more blocks than the input has pieces of `ints_per_block`, at least one, at most the
// workspace's capacity (0 when there is no workspace).
inline int clamp_blocks(int blocks, size_t n, size_t ints_per_block, int capacity) {
  const size_t needed = (n + ints_per_block - 1) / ints_per_block;
  if (size_t(blocks) > needed) blocks = int(needed);
  if (blocks < 1) blocks = 1;
  return blocks > capacity ? capacity : blocks;
}

// ---- the reference -----------------------------------------------------------------------------

constexpr int kRefBlock = 256;  // threads per block
constexpr int kRefUnroll = 4;   // 16-byte loads in flight per thread

// *out = sum of in[0..n). partials: one word per block; *ticket: 0 at launch, 0 again after it.
__global__ void __launch_bounds__(kRefBlock, 2048 / kRefBlock)
    reduce_sum_int32_kernel(const int* __restrict__ in, size_t n, unsigned* __restrict__ partials,
                            unsigned* __restrict__ ticket, int* __restrict__ out) {
  constexpr int B = kRefBlock, U = kRefUnroll;
  const size_t tid = size_t(blockIdx.x) * B + threadIdx.x;
  const size_t threads = size_t(gridDim.x) * B;
  const Split s = split16(in, n);
  unsigned sum = head_and_tail(in, n, s, tid);

  // The uint4s come in tiles of B x U (16 KB). Block b reads tiles b, b + gridDim.x, ... (a
  // grid-stride loop over tiles). In a tile, load u of thread t reads uint4 number u x B + t, so
  // every load of a warp covers 512 contiguous bytes (coalesced) and the block's U loads cover the
  // whole tile. All U loads are issued before the first add needs one.
  constexpr size_t kTile = size_t(B) * U;
  const size_t tiles = s.n4 / kTile;
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const uint4* p = s.in4 + t * kTile + threadIdx.x;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(p + u * B);
#pragma unroll
    for (int u = 0; u < U; ++u) sum += add4(v[u]);
  }
  for (size_t i = tiles * kTile + tid; i < s.n4; i += threads) sum += add4(__ldcs(s.in4 + i));  // after the last tile

  sum = block_reduce_sum<B>(sum);

  // Last block done.
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    // Release: the fence makes our partial visible to the whole GPU before the atomicAdd below can
    // be seen by anyone. Without it, the last block could count our ticket and still read an old
    // partials[blockIdx.x].
    __threadfence();
    const unsigned taken = atomicAdd(ticket, 1u);
    is_last = (taken == gridDim.x - 1);
    // Acquire: the block that took the last ticket orders its coming reads of partials[] after
    // the atomicAdd that counted every other block's ticket.
    if (is_last) __threadfence();
  }
  // Every thread needs is_last, which thread 0 wrote to shared memory. The barrier also keeps
  // warp 0's reads of warp_sums (in block_reduce_sum above) before the second call below.
  __syncthreads();
  if (!is_last) return;  // the whole block leaves together: is_last is the same for all its threads

  unsigned v = 0;
  // __ldcg reads from L2, where the other blocks' partials are, never from this SM's L1.
  for (unsigned b = threadIdx.x; b < gridDim.x; b += B) v += __ldcg(partials + b);
  v = block_reduce_sum<B>(v);
  if (threadIdx.x == 0) {
    *out = int(v);
    // Ready for the next launch. Safe: every block has taken its ticket already, and the next
    // kernel in the stream starts only after this one has finished.
    *ticket = 0;
  }
}

inline int reduce_sum_int32_blocks() { return persistent_grid(reduce_sum_int32_kernel, kRefBlock); }

// *d_out = sum of d_in[0..n) (int32, wrap-around), asynchronously in `stream`. blocks: the grid,
// from reduce_sum_int32_blocks() (0: ask now). Returns the launch's error.
inline cudaError_t reduce_sum_int32(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks = 0,
                                    cudaStream_t stream = 0) {
  if (blocks <= 0) blocks = reduce_sum_int32_blocks();
  blocks = clamp_blocks(blocks, n, size_t(kRefBlock) * 4 * kRefUnroll, ws.capacity);
  if (blocks < 1) return cudaErrorInvalidValue;
  reduce_sum_int32_kernel<<<blocks, kRefBlock, 0, stream>>>(d_in, n, ws.partials, ws.ticket, d_out);
  return cudaGetLastError();
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
