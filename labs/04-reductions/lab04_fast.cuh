// Lab 04, task 7 (fast.cu): the grid-wide int32 sum that is timed against
// cub::DeviceReduce::Sum on a GPU (bench/lab04_reduction). Provided: the API the benchmark and the
// harness call, and the parts of the job that are not about synchronization (scratch memory, the
// grid size, splitting the input at 16-byte boundaries). Plain CUDA runtime only.
//
//   lab04::ReduceWorkspace ws;
//   CHECK(lab04::reduce_workspace_create(&ws));
//   const int blocks = lab04::reduce_sum_int32_blocks();          // once: the grid for this GPU
//   CHECK(lab04::reduce_sum_int32(d_in, n, d_out, ws, blocks));   // *d_out = d_in[0] + ... + d_in[n-1]
//   lab04::reduce_workspace_destroy(&ws);
//
// The result is the int32 sum with wrap-around (two's complement, modulo 2^32): what adding int32
// values on the GPU gives, and what cub::DeviceReduce::Sum(int*, int*) returns. Add as `unsigned`
// inside: unsigned overflow wraps by definition in C++, signed overflow is undefined; both give
// the same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace lab04 {

// ---- what fast.cu defines (task 7) ---------------------------------------------------------------

// Scratch memory for the block sums and a ticket. Create once, reuse for every call (not by two
// calls running at the same time: they would share the ticket).
struct ReduceWorkspace {
  unsigned* partials = nullptr;  // one per block
  unsigned* ticket = nullptr;    // last-block-done's counter; 0 between launches
  int capacity = 0;              // the most blocks a launch may have
};

// The grid reduce_sum_int32 should get on this GPU (0 if a query fails). The queries cost
// microseconds and a 1 GiB sum about 230 us, so ask once and pass the number to every call.
int reduce_sum_int32_blocks();

// *d_out = sum of d_in[0..n) (int32, wrap-around), asynchronously in `stream`. blocks: the grid,
// from reduce_sum_int32_blocks() (0: ask now). Returns the launch's error. *ws.ticket is 0 before
// the call and must be 0 again after it.
cudaError_t reduce_sum_int32(const int* d_in, size_t n, int* d_out, const ReduceWorkspace& ws, int blocks = 0,
                             cudaStream_t stream = 0);

// ---- provided --------------------------------------------------------------------------------------

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

// SMs x how many blocks of `kernel` fit on one SM at once (0 if a query fails): a "persistent"
// grid, every block resident at once, each looping over the input.
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

}  // namespace lab04
