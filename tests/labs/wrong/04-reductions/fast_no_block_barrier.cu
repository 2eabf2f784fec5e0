// WRONG SOLUTION (lab 04, task 7): the block sum of the fast kernel without the barrier between
// the warps' writes of their sums to shared memory and warp 0's reads of them.
// WRONG-REPLACES: fast.cu
// WRONG-FAILS: lab04 task7 reduce_sum_int32 sums awkward sizes and alignments under both warp and memory models
// WRONG-MESSAGE: race at fast_no_block_barrier\.cu:[0-9]+ \(read-after-write race on shared memory\)
// WRONG-MESSAGE: needs a __syncthreads\(\) between the write and the read
// WRONG-FIX:   if (warp == 0) v = =>   __syncthreads();\n  if (warp == 0) v =
//
// Lab 04, task 7: the fastest grid-wide int32 sum you can write, timed against
// cub::DeviceReduce::Sum in the same run (bench/lab04_reduction; `lab04 fast` checks it on the
// simulator first). lab04_fast.cuh declares what this file defines and provides the rest.
//
// How one launch of this reference works (the order of the lab's tasks):
//   1. Each thread adds its share of the input into one register. Loads are 16 bytes wide (a
//      uint4 holds 4 ints), each thread issues 4 of them before it adds any (so that enough bytes
//      are in flight to keep the memory busy), and they are "streaming" loads (__ldcs: every byte
//      is read once, so the caches need not keep it).
//   2. Each warp adds its 32 registers with shuffles (__shfl_down_sync, task 4): no shared memory.
//   3. Each block adds its warps' sums through shared memory: one __syncthreads.
//   4. Last block done (task 5c): each block writes its sum to partials[], __threadfence(), and
//      takes a ticket with atomicAdd; the block that draws the last ticket knows that every other
//      sum is written, adds them and writes the result. One launch.
// The grid is "persistent": as many blocks as the GPU holds at once (SMs x blocks per SM), each
// looping over the input, so the last block adds only about a thousand partial sums.
#include "lab04_fast.cuh"

namespace lab04 {

namespace {

constexpr int kBlock = 256;  // threads per block
constexpr int kUnroll = 4;   // 16-byte loads in flight per thread

// The sum of v over the 32 lanes of the calling warp, in lane 0 (the others get partial sums).
// Every lane must call it: the full mask says so, and makes the hardware wait for all 32 lanes
// before it exchanges their registers (register to register: no shared memory, no __syncwarp).
__device__ __forceinline__ unsigned warp_reduce_sum(unsigned v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The sum of v over the BLOCK threads of the calling block, in thread 0. Every thread calls it.
template <int BLOCK>
__device__ __forceinline__ unsigned block_reduce_sum(unsigned v) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: a multiple of 32, at most 1024");
  constexpr int kWarps = BLOCK / 32;
  __shared__ unsigned warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  // Warp 0 is about to read what lane 0 of every warp just wrote: the barrier orders them.
  if (warp == 0) v = warp_reduce_sum(lane < kWarps ? warp_sums[lane] : 0u);
  // A caller that calls this twice needs a __syncthreads between the calls: warp 0 may still be
  // reading warp_sums while another warp would already be overwriting it.
  return v;
}

// *out = sum of in[0..n). partials: one word per block; *ticket: 0 at launch, 0 again after it.
__global__ void __launch_bounds__(kBlock, 2048 / kBlock)
    reduce_sum_int32_kernel(const int* __restrict__ in, size_t n, unsigned* __restrict__ partials,
                            unsigned* __restrict__ ticket, int* __restrict__ out) {
  constexpr int B = kBlock, U = kUnroll;
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

}  // namespace

int reduce_sum_int32_blocks() { return persistent_grid(reduce_sum_int32_kernel, kBlock); }

cudaError_t reduce_sum_int32(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks,
                             cudaStream_t stream) {
  if (blocks <= 0) blocks = reduce_sum_int32_blocks();
  blocks = clamp_blocks(blocks, n, size_t(kBlock) * 4 * kUnroll, ws.capacity);
  if (blocks < 1) return cudaErrorInvalidValue;
  reduce_sum_int32_kernel<<<blocks, kBlock, 0, stream>>>(d_in, n, ws.partials, ws.ticket, d_out);
  return cudaGetLastError();
}

}  // namespace lab04
