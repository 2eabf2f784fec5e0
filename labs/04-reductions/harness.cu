// Lab 04 (reductions): the harness's host side (provided). Each run_* function allocates, launches
// one of the student files' kernels under the simulator's current settings, copies the result
// back, and collects the simulator's reports (none on a GPU). A fault, hang or deadlock throws
// synclab::lab::CudaFailure naming this file's line.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab04.h"
#include "synclab_lab.h"
#include "lab04_fast.cuh"
#include "lab04_kernels.cuh"
#include "lab_harness.cuh"

namespace lab04 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::TraceScope;

const char* name(BlockKernel k) {
  switch (k) {
    case BlockKernel::interleaved: return "block_sum_interleaved";
    case BlockKernel::sequential: return "block_sum_sequential";
    case BlockKernel::skip_barrier: return "block_sum_skip_barrier";
    case BlockKernel::compact_racy: return "compact_racy";
    case BlockKernel::compact_fixed: return "compact_fixed";
    case BlockKernel::shuffle: return "block_sum_shuffle";
    case BlockKernel::tail_unsafe: return "block_sum_tail_unsafe";
    case BlockKernel::tail: return "block_sum_tail";
  }
  return "?";
}

BlockKernel block_kernel(const std::string& n) {
  for (BlockKernel k :
       {BlockKernel::interleaved, BlockKernel::sequential, BlockKernel::skip_barrier, BlockKernel::compact_racy,
        BlockKernel::compact_fixed, BlockKernel::shuffle, BlockKernel::tail_unsafe, BlockKernel::tail})
    if (n == name(k)) return k;
  if (n == "interleaved") return BlockKernel::interleaved;
  if (n == "sequential") return BlockKernel::sequential;
  if (n == "racy") return BlockKernel::compact_racy;
  if (n == "fixed") return BlockKernel::compact_fixed;
  if (n == "shuffle") return BlockKernel::shuffle;
  if (n == "unsafe") return BlockKernel::tail_unsafe;
  if (n == "tail" || n == "safe") return BlockKernel::tail;
  throw std::invalid_argument("unknown kernel '" + n + "'");
}

const char* name(GridKernel k) {
  switch (k) {
    case GridKernel::atomic: return "grid_sum_atomic";
    case GridKernel::two_pass: return "grid_partials + sum_partials";
    case GridKernel::last_block: return "grid_sum_last_block";
  }
  return "?";
}

std::vector<int> random_values(int n, uint32_t seed) {
  std::vector<int> v(n > 0 ? n : 0);
  synclab::lab::Xorshift64 random{0x2545f4914f6cdd1dull ^ seed};
  for (int& x : v) x = int(random.next() % 100);
  return v;
}

std::vector<Mat> random_matrices(int n, uint32_t seed) {
  std::vector<Mat> v(n > 0 ? n : 0);
  synclab::lab::Xorshift64 random{0x2545f4914f6cdd1dull ^ seed};
  for (Mat& m : v) {
    const uint64_t r = random.next();
    m = Mat{unsigned(r & 3), unsigned(r >> 2 & 3), unsigned(r >> 4 & 3), unsigned(r >> 6 & 3)};
  }
  return v;
}

namespace {
bool in_place(BlockKernel k) {
  return k == BlockKernel::interleaved || k == BlockKernel::sequential || k == BlockKernel::skip_barrier ||
         k == BlockKernel::compact_racy || k == BlockKernel::compact_fixed;
}

void check_values(const std::vector<int>& values, int blocks, int threads) {
  check_shape(blocks, threads);
  if (values.size() != size_t(blocks) * threads)
    throw std::invalid_argument("need blocks x threads = " + std::to_string(blocks * threads) + " values, not " +
                                std::to_string(values.size()));
}
}  // namespace

// ---- tasks 1-4 ----------------------------------------------------------------------------------
BlockResult run_block(BlockKernel kernel, const std::vector<int>& values, int blocks, int threads, int skip,
                      const char* trace) {
  check_values(values, blocks, threads);
  const bool pow2 = (threads & (threads - 1)) == 0;
  if (kernel == BlockKernel::shuffle ? threads % 32 != 0 : !pow2)
    throw std::invalid_argument(std::string(name(kernel)) + " needs " +
                                (kernel == BlockKernel::shuffle ? "a multiple of 32" : "a power of two") +
                                " threads per block, not " + std::to_string(threads));
  if ((kernel == BlockKernel::tail || kernel == BlockKernel::tail_unsafe) && threads < 64)
    throw std::invalid_argument(std::string(name(kernel)) + " needs at least 64 threads per block");
  BlockResult r;
  DeviceArray<int> a(values.size()), out(blocks, synclab::lab::zeroed);
  a.upload(values);
  if (trace) {
    if (in_place(kernel)) {
      synclab_region(a.ptr, a.bytes(), "a", "array", int(values.size()));
    } else {
      synclab_region(a.ptr, a.bytes(), "in", "array", int(values.size()));
      synclab_region(out.ptr, out.bytes(), "out (per block)", "array", blocks);
    }
    // Task 4 works in shared memory: the viewer draws one block's copy (synclab-viz --block N).
    // The tails' s holds the block's values (the last 64 are warp 0's); the shuffle version's
    // warp_sums gets one sum per warp. A kernel without the array is traced without it.
    int refused = 0;
    if (kernel == BlockKernel::tail_unsafe)
      refused = synclab_region_shared(block_sum_tail_unsafe, "s", size_t(threads) * sizeof(int), "array", threads);
    else if (kernel == BlockKernel::tail)
      refused = synclab_region_shared(block_sum_tail, "s", size_t(threads) * sizeof(int), "array", threads);
    else if (kernel == BlockKernel::shuffle)
      refused = synclab_region_shared(block_sum_shuffle, "warp_sums", size_t(threads / 32) * sizeof(int), "array",
                                      threads / 32);
    if (refused)
      std::fprintf(stderr, "(%s has no such __shared__ array yet, or under another name: the trace leaves it out)\n",
                   name(kernel));
  }
  {
    TraceScope scope(trace);
    switch (kernel) {
      case BlockKernel::interleaved: block_sum_interleaved<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::sequential: block_sum_sequential<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::skip_barrier: block_sum_skip_barrier<<<blocks, threads>>>(a.ptr, skip); break;
      case BlockKernel::compact_racy: compact_racy<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::compact_fixed: compact_fixed<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::shuffle: block_sum_shuffle<<<blocks, threads>>>(a.ptr, out.ptr); break;
      case BlockKernel::tail_unsafe: block_sum_tail_unsafe<<<blocks, threads>>>(a.ptr, out.ptr); break;
      case BlockKernel::tail: block_sum_tail<<<blocks, threads>>>(a.ptr, out.ptr); break;
    }
    finish_launch(r.reports);
  }
  if (in_place(kernel)) {
    r.segment = a.download();
    for (int b = 0; b < blocks; ++b) r.sums.push_back(r.segment[size_t(b) * threads]);
  } else {
    r.sums = out.download();
  }
  return r;
}

// ---- task 5 -------------------------------------------------------------------------------------
GridResult run_grid(GridKernel kernel, const std::vector<int>& values, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  if ((threads & (threads - 1)) != 0)
    throw std::invalid_argument("the grid sums need a power of two threads per block, not " + std::to_string(threads));
  GridResult r;
  const int n = int(values.size());
  DeviceArray<int> in(values.size()), partials(blocks, synclab::lab::zeroed), out(1, synclab::lab::zeroed);
  DeviceArray<unsigned> ticket(1, synclab::lab::zeroed);
  in.upload(values);
  if (trace) {
    synclab_region(partials.ptr, partials.bytes(), "partials (per block)", "array", blocks);
    synclab_region(ticket.ptr, ticket.bytes(), "ticket", "array", 1);
    synclab_region(out.ptr, out.bytes(), "out", "array", 1);
  }
  {
    TraceScope scope(trace);
    switch (kernel) {
      case GridKernel::atomic:
        grid_sum_atomic<<<blocks, threads>>>(in.ptr, n, out.ptr);
        finish_launch(r.reports);
        break;
      case GridKernel::two_pass:
        grid_partials<<<blocks, threads>>>(in.ptr, n, partials.ptr);
        finish_launch(r.reports);
        sum_partials<<<1, threads>>>(partials.ptr, blocks, out.ptr);
        finish_launch(r.reports);
        break;
      case GridKernel::last_block:
        grid_sum_last_block<<<blocks, threads>>>(in.ptr, n, partials.ptr, ticket.ptr, out.ptr);
        finish_launch(r.reports);
        break;
    }
  }
  r.sum = out.download()[0];
  r.ticket = ticket.download()[0];
  return r;
}

// ---- task 6 -------------------------------------------------------------------------------------
ProductResult run_product(const std::vector<Mat>& matrices, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  if ((threads & (threads - 1)) != 0)
    throw std::invalid_argument("block_product needs a power of two threads per block, not " + std::to_string(threads));
  if (matrices.size() != size_t(blocks) * threads) throw std::invalid_argument("need blocks x threads matrices");
  std::vector<Mat2> h(matrices.size());
  for (size_t i = 0; i < h.size(); ++i) h[i] = Mat2{matrices[i].a, matrices[i].b, matrices[i].c, matrices[i].d};
  ProductResult r;
  DeviceArray<Mat2> m(h.size());
  m.upload(h);
  if (trace) synclab_region(m.ptr, m.bytes(), "m (a, b, c, d of each matrix)", "array", int(4 * h.size()));
  {
    TraceScope scope(trace);
    block_product<<<blocks, threads>>>(m.ptr);
    finish_launch(r.reports);
  }
  h = m.download();
  for (int b = 0; b < blocks; ++b) {
    const Mat2& x = h[size_t(b) * threads];
    r.products.push_back(Mat{x.a, x.b, x.c, x.d});
  }
  return r;
}

// ---- task 7 -------------------------------------------------------------------------------------
FastResult run_fast(const std::vector<int>& values, int offset, int blocks) {
  if (offset < 0 || offset > 3) throw std::invalid_argument("--offset is 0, 1, 2 or 3");
  FastResult r;
  DeviceArray<int> in(values.size() + 4), out(1);
  ReduceWorkspace ws;
  SYNCLAB_LAB_CHECK(reduce_workspace_create(&ws, 1024));
  struct Free {
    ReduceWorkspace* w;
    ~Free() { reduce_workspace_destroy(w); }
  } free_ws{&ws};
  if (!values.empty())
    SYNCLAB_LAB_CHECK(cudaMemcpy(in.ptr + offset, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice));
  const int poison = 0x5a5a5a5a;
  SYNCLAB_LAB_CHECK(cudaMemcpy(out.ptr, &poison, sizeof(int), cudaMemcpyHostToDevice));
  SYNCLAB_LAB_CHECK(reduce_sum_int32(in.ptr + offset, values.size(), out.ptr, ws, blocks));
  finish_launch(r.reports);
  r.sum = out.download()[0];
  SYNCLAB_LAB_CHECK(cudaMemcpy(&r.ticket, ws.ticket, sizeof(unsigned), cudaMemcpyDeviceToHost));
  return r;
}

}  // namespace lab04

// ---- task 1c: measuring divergence ---------------------------------------------------------------
namespace lab04 {
namespace {
// One block: at every level of the tree (addressing 0: interleaved, 1: sequential), lane 0 of each
// warp counts its warp in split[level] when some of its lanes add and some do not (a ballot of the
// condition under which a thread adds). blockDim.x: a power of two, at least 32.
__global__ void divergence_probe(int addressing, int* split) {
  const unsigned t = threadIdx.x;
  int level = 0;
  for (unsigned step = addressing == 0 ? 1 : blockDim.x / 2; addressing == 0 ? step < blockDim.x : step > 0;
       step = addressing == 0 ? step * 2 : step / 2, ++level) {
    const bool adds = addressing == 0 ? t % (2 * step) == 0 : t < step;
    const unsigned lanes = __ballot_sync(0xffffffffu, adds);
    if (t % 32 == 0 && lanes != 0 && lanes != 0xffffffffu) atomicAdd(&split[level], 1);
  }
}
}  // namespace

std::vector<int> task1c_sizes(const std::string& student) {
  if (student.empty()) return {64, 256};
  static const std::vector<int> pool{64, 128, 256, 512};
  std::vector<int> sizes = synclab::lab::student_pick(student, "lab04 task1c", pool, 2);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<int> task3_sizes(const std::string& student) {
  if (student.empty()) return {64, 128};
  static const std::vector<int> pool{32, 64, 128, 256, 512};
  std::vector<int> sizes = synclab::lab::student_pick(student, "lab04 task3", pool, 2);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<int> measure_divergent_warps(Addressing addressing, int threads) {
  check_shape(1, threads);
  if (threads < 32 || (threads & (threads - 1)) != 0)
    throw std::invalid_argument("divergence needs a power of two of at least 32 threads, not " +
                                std::to_string(threads));
  int levels = 0;
  while ((1 << levels) < threads) ++levels;
  DeviceArray<int> split(levels, synclab::lab::zeroed);
  std::vector<Report> reports;
  divergence_probe<<<1, threads>>>(addressing == Addressing::interleaved ? 0 : 1, split.ptr);
  finish_launch(reports);
  return split.download();
}
}  // namespace lab04
