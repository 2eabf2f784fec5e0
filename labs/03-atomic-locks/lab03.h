// Lab 03 (atomic locks): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab03.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the
// result back and collects the simulator's reports after every launch. A launch that ends in a
// hang, a deadlock or a fault does not throw: the result says `finished = false` and carries the
// error and the reports, because for this lab a deadlock is an outcome to look at.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "synclab_report.h"

namespace lab03 {

using synclab::lab::Report;

// What every run returns besides its data.
struct Outcome {
  bool finished = true;          // false: the launch failed (hang, deadlock, fault, bad launch)
  std::string error;             // CUDA's message when it failed
  std::vector<Report> reports;   // the simulator's reports of the launch (none on a GPU)
};

// ---- task 1 and 5: counting under one lock ---------------------------------------------------------
enum class CountKernel { naive, locked, backoff, warp_aggregated };
const char* name(CountKernel k);

struct CountResult : Outcome {
  int counter = 0;   // what the critical sections added up
  int sections = 0;  // how many critical sections ran
  int lock = 0;      // the lock word after the kernel (0 when released)
  float kernel_ms = 0;  // the kernel's time (cudaEventElapsedTime; simulated on the simulator)
};
CountResult run_count(CountKernel kernel, int blocks, int threads_per_block, int rounds,
                      const char* trace = nullptr);

// The student's prediction (lock.cu, 1a).
bool predicted_naive_finishes(const std::string& model, int blocks, int threads);

// The six launches task 1a is graded on for a student id (synclab::lab::student_id()): two under
// lockstep with warps of several lanes, two under lockstep with one thread per block and two under
// its. Without an id: <<<1,32>>> lockstep, <<<1,32>>> its, <<<4,1>>> lockstep, <<<2,2>>> lockstep,
// <<<3,40>>> its, <<<1,1>>> lockstep; with one, each pair is drawn from a pool of five.
struct NaiveLaunch {
  std::string model;
  int blocks = 1, threads = 1;
};
std::vector<NaiveLaunch> task1a_launches(const std::string& student);

// ---- task 2: single -----------------------------------------------------------------------------
struct SingleResult : Outcome {
  std::vector<int> entered;  // per block (single_per_block) or one entry (single_grid)
  std::vector<int> chosen;
};
SingleResult run_single_grid(int blocks, int threads_per_block, const char* trace = nullptr);
SingleResult run_single_per_block(int blocks, int threads_per_block, const char* trace = nullptr);

// ---- task 3: the atomicCAS puzzle ---------------------------------------------------------------
// One run's output: its lines ("Thread 3 succeeded 1."), sorted by thread, then by which CAS.
using PuzzleOutput = std::vector<std::string>;
std::string puzzle_line(int thread, int which);
PuzzleOutput normalized(PuzzleOutput out);  // sorted by thread number, then by which CAS
// Orders outputs (of normalized lines) the same way, line by line: for listing them.
bool output_less(const PuzzleOutput& a, const PuzzleOutput& b);
struct PuzzleResult : Outcome {
  PuzzleOutput output;  // sorted
};
PuzzleResult run_puzzle(int blocks, int threads_per_block, const char* trace = nullptr);

// The student's prediction (puzzle.cu).
std::vector<PuzzleOutput> predicted_puzzle_outputs(int blocks, int threads_per_block);

// The small launches of task 3 for a student id, {blocks, threads}: <<<3,1>>>, <<<1,2>>> and
// <<<2,3>>> without an id; with one, three drawn from the launches of 1 to 3 blocks and 2 to 6
// threads in all (small enough for the graded test to enumerate every order of the atomics).
std::vector<std::pair<int, int>> task3_small_launches(const std::string& student);

// ---- task 4: the bucket table ---------------------------------------------------------------------
struct BucketResult : Outcome {
  std::vector<int> counts;                // per bucket
  std::vector<std::vector<int>> items;    // per bucket, the first counts[b] items (clamped)
  std::vector<int> locks;                 // the lock words after the kernel
};
// n keys from a fixed generator (xorshift from `seed`). The graded tests and `lab03 buckets` insert
// the same keys, so a test's replay line runs the same data.
std::vector<int> random_keys(int n, uint32_t seed);
// The seed both use for n keys into `buckets` buckets (`--data-seed` overrides it).
inline uint32_t keys_seed(int n, int buckets) { return uint32_t(n * 7 + buckets); }
BucketResult run_buckets(const std::vector<int>& keys, int buckets, int blocks, int threads_per_block,
                         unsigned backoff_ns, const char* trace = nullptr);

// ---- task 6: a lock of your own design ------------------------------------------------------------
struct OwnResult : Outcome {
  int counter = 0;           // sections counted (plain load and store in the section)
  int requests = 0;          // request numbers handed out
  std::vector<int> entered;  // entered[k]: the request number of the k-th section (requests of them)
};
OwnResult run_own(int blocks, int threads_per_block, int rounds, const char* trace = nullptr);
// What is wrong with a run of task 6 ("" when nothing): a count off, or a request that never entered
// or entered twice.
std::string own_problem(const OwnResult& r, int blocks, int threads_per_block, int rounds);
// What to fix, from what own_problem and the reports say ("" when nothing is known).
std::string own_advice(const OwnResult& r, const std::string& problem);

}  // namespace lab03
