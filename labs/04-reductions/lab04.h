// Lab 04 (reductions): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab04.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the
// result back and collects the simulator's reports after every launch. A launch that faults, hangs
// or deadlocks throws synclab::lab::CudaFailure (it fails one graded case with its message).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "synclab_report.h"

namespace lab04 {

using synclab::lab::Report;

// ---- inputs -----------------------------------------------------------------------------------
// n values in [0, 100) from a fixed generator (xorshift from `seed`): the graded tests and the
// harness program use the same data, so a test's replay line runs it.
std::vector<int> random_values(int n, uint32_t seed);
// The seed both use for a launch shape (`--data-seed` overrides it).
inline uint32_t values_seed(int blocks, int threads) { return uint32_t(blocks * 1000 + threads); }

// ---- tasks 1, 2, 3, 4: one result per block ----------------------------------------------------
enum class BlockKernel {
  interleaved,    // 1a block_sum_interleaved
  sequential,     // 1b block_sum_sequential
  skip_barrier,   // 3  block_sum_skip_barrier (with `skip`)
  compact_racy,   // 2  compact_racy (provided)
  compact_fixed,  // 2b compact_fixed
  shuffle,        // 4a block_sum_shuffle
  tail_unsafe,    // 4  block_sum_tail_unsafe (provided)
  tail,           // 4b block_sum_tail
};
const char* name(BlockKernel k);
BlockKernel block_kernel(const std::string& name);  // from name() or the short names of main.cu

struct BlockResult {
  std::vector<int> sums;        // per block: what the kernel left as the block's sum
  std::vector<int> segment;     // in-place kernels: the whole array after the launch
  std::vector<Report> reports;  // the simulator's reports (none on a GPU)
};
// Runs `kernel` over `values` (blocks x threads of them). skip: block_sum_skip_barrier's barrier.
BlockResult run_block(BlockKernel kernel, const std::vector<int>& values, int blocks, int threads, int skip = -1,
                      const char* trace = nullptr);

// 1c: the student's predictions (tree.cu).
enum class Addressing { interleaved, sequential };
int predicted_divergent_warps(Addressing addressing, int threads, int level);
// What a launch shows: per level, the warps whose lanes do not all take the same branch (a ballot
// of the condition under which a thread adds, in a provided kernel of one block).
std::vector<int> measure_divergent_warps(Addressing addressing, int threads);
// The two block sizes task 1c is graded on for a student id (synclab::lab::student_id()): 64 and
// 256 without one; with one, two of 64, 128, 256 and 512, drawn from the id (README, task 1c).
std::vector<int> task1c_sizes(const std::string& student);
// 3: the barriers of block_sum_skip_barrier that may be left out, one at a time (tree.cu).
std::set<int> predicted_removable_barriers(const std::string& model, int threads);
// The two block sizes task 3 is graded on for a student id: 64 and 128 without one; with one, two
// of 32, 64, 128, 256 and 512, drawn from the id (README, task 3).
std::vector<int> task3_sizes(const std::string& student);

// 2a: a conflict of compact_racy's first level (inplace.cu).
struct Conflict {
  int element;  // a[element] of the block's segment
  int reader;   // the thread that reads it
  int writer;   // the thread that writes it
  bool operator==(const Conflict& o) const { return element == o.element && reader == o.reader && writer == o.writer; }
};
std::vector<Conflict> first_level_conflicts(int threads);

// 4c (warp.cu).
bool predicted_tail_races(const std::string& model);

// ---- task 5: the grid --------------------------------------------------------------------------
enum class GridKernel { atomic, two_pass, last_block };
const char* name(GridKernel k);
struct GridResult {
  int sum = 0;          // *out after the launch(es)
  unsigned ticket = 0;  // last_block: the ticket after the launch
  std::vector<Report> reports;
};
GridResult run_grid(GridKernel kernel, const std::vector<int>& values, int blocks, int threads,
                    const char* trace = nullptr);

// ---- task 6: the matrix product ----------------------------------------------------------------
struct Mat {
  unsigned a, b, c, d;
  bool operator==(const Mat& o) const { return a == o.a && b == o.b && c == o.c && d == o.d; }
  bool operator!=(const Mat& o) const { return !(*this == o); }
};
// n matrices with entries in [0, 4), from the same generator as random_values.
std::vector<Mat> random_matrices(int n, uint32_t seed);
struct ProductResult {
  std::vector<Mat> products;  // per block
  std::vector<Report> reports;
};
ProductResult run_product(const std::vector<Mat>& matrices, int blocks, int threads, const char* trace = nullptr);

// ---- task 7: the fast sum (on the simulator: correctness only) -----------------------------------
struct FastResult {
  int sum = 0;
  unsigned ticket = 0;
  std::vector<Report> reports;
};
// reduce_sum_int32 over `values` placed `offset` ints after a 16-byte boundary, with `blocks`
// blocks (0: reduce_sum_int32_blocks()).
FastResult run_fast(const std::vector<int>& values, int offset, int blocks);

}  // namespace lab04
