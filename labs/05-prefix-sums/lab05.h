// Lab 05 (prefix sums): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab05.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the result
// back and collects the simulator's reports after every launch. A launch that faults throws
// synclab::lab::CudaFailure (it fails one graded case with its message); a look-back launch that
// hangs is a result (LookbackResult::stuck) with the simulator's hang report.
//
// On the simulator the lab's launches start their blocks in reverse blockIdx order unless
// SYNCLAB_DISPATCH says otherwise (harness.cu sets SYNCLAB_DISPATCH=reverse before the simulator
// starts): the order that hurts a scan whose blocks wait for the blocks before them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_lab.h"

namespace lab05 {

using synclab::lab::Report;

// ---- inputs -----------------------------------------------------------------------------------
// n values in [0, 10) from a fixed generator (xorshift from `seed`): the graded tests and the
// harness program use the same data, so a test's replay line runs it.
std::vector<int> random_values(int n, uint32_t seed);
// The seed both use for a shape (`--data-seed` overrides it).
inline uint32_t values_seed(int n, int threads) { return uint32_t(n * 1000 + threads); }

// The order in which this process's simulator starts blocks ("order", "reverse", "random", or
// "default": blockIdx order under rr, random under pct and random); "gpu" on a GPU.
std::string dispatch_order();
// The same in words, for messages: "in reverse blockIdx order", "in blockIdx order", ...
std::string dispatch_words();

// ---- tasks 1 and 2: one scan per block -----------------------------------------------------------
enum class BlockKernel {
  hillis_racy,    // 1  scan_hillis_racy (provided)
  hillis_fixed,   // 1a scan_hillis_fixed
  hillis_double,  // 1b scan_hillis_double
  blelloch,         // 2  scan_blelloch
  blelloch_padded,  // 2b scan_blelloch_padded
};
const char* name(BlockKernel k);
bool exclusive(BlockKernel k);                     // blelloch (and padded): exclusive; the others inclusive
BlockKernel block_kernel(const std::string& name);  // from name() or the short names of main.cu

struct BlockResult {
  std::vector<int> out;         // the whole array after the launch
  std::vector<Report> reports;  // the simulator's reports (none on a GPU)
};
// What to fix when a run of `kernel` reported `r` ("" when there is nothing to say); the harness
// program and the graded tests print the same advice.
std::string block_advice(BlockKernel kernel, const Report& r);
// What to fix when a run of `kernel` over `values` (segments of `threads`) left `out` wrong with no
// report ("" when it recognizes no mistake): 1b's result read from the other buffer.
std::string block_result_advice(BlockKernel kernel, const std::vector<int>& values, int threads,
                                const std::vector<int>& out);
// Runs `kernel` over `values` (blocks x threads of them, threads a power of two).
BlockResult run_block(BlockKernel kernel, const std::vector<int>& values, int blocks, int threads,
                      const char* trace = nullptr);

// ---- task 3: reduce, then scan -------------------------------------------------------------------
struct ScanResult {
  std::vector<int> out;         // out[0..n)
  std::vector<int> sums;        // task 3: the tile sums after scan_tile_sums (the tiles' offsets)
  std::vector<Report> reports;
};
// tile_sums, scan_tile_sums and scan_tiles over `values`, tiles of `threads` (a multiple of 32).
ScanResult run_multiblock(const std::vector<int>& values, int threads, const char* trace = nullptr);

// ---- task 4: decoupled look-back -------------------------------------------------------------------
// The flag value of a tile whose inclusive prefix is published (kPrefix in lab05_kernels.cuh).
constexpr unsigned kFlagPrefix = 2;
struct LookbackResult {
  std::vector<int> out;             // out[0..n) (what the kernel wrote, when it finished)
  std::vector<unsigned> flags;      // each tile's status after the launch
  unsigned tile_counter = 0;        // the counter after the launch
  bool stuck = false;               // the simulator found the launch stuck (a hang): reports say where
  std::vector<Report> reports;
};
// scan_lookback over `values` in ceil(n / threads) blocks of `threads` (a multiple of 32).
LookbackResult run_lookback(const std::vector<int>& values, int threads, const char* trace = nullptr);
// What to fix after a look-back run that was wrong (`wrong`), stuck or reported, run under the
// memory model `memory` ("sc" or "relaxed"); "" when there is nothing to say. The harness program
// and the graded tests print the same advice.
std::string lookback_advice(const LookbackResult& r, const std::string& memory, bool wrong);

// ---- task 5: stream compaction -----------------------------------------------------------------------
struct CompactResult {
  std::vector<int> out;         // out[0..count)
  int count = 0;                // how many values were kept (the last position)
  std::vector<Report> reports;
};
// keep_flags, then a provided scan of the flags, then scatter_kept, each over `blocks` x `threads`.
CompactResult run_compact(const std::vector<int>& values, int blocks, int threads, const char* trace = nullptr);
// What to fix after a compaction run that was wrong or reported, `expected` being how many values
// the host keeps; "" when there is nothing to say.
std::string compact_advice(const CompactResult& r, int expected, bool wrong);

}  // namespace lab05
