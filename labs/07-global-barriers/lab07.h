// Lab 07 (global barriers): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab07.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the result
// back and collects the simulator's reports after every launch. A launch that faults, hangs or
// deadlocks throws synclab::lab::CudaFailure (it fails one graded case with its message), unless
// the function is asked to keep a stuck launch as its result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_lab.h"

namespace lab07 {

using synclab::lab::Report;

// The methods, in the order of the paper's Figure 8 (lab07_kernels.cuh has the same enum).
// own: task 10, the student's own design (lab07_kernels.cuh, own_grid_barrier).
enum class Way { cpu_explicit, cpu_implicit, simple, tree, lockfree, sense, grid_sync, own };
const char* name(Way w);  // "explicit", "implicit", "simple", "tree", "lockfree", "sense", "grid-sync", "own"
Way way(const std::string& name);  // from name()
bool in_one_launch(Way w);        // the GPU barriers and grid.sync (every block must be resident)
// The barrier rounds that run_exchange(w, ..., rounds, ...) runs: `rounds`, but for task 10, whose
// exchange is two launches on one barrier state (rounds, then rounds + 1): 2 x rounds + 1.
int barrier_rounds(Way w, int rounds);

// ---- inputs ------------------------------------------------------------------------------------
// n values from a fixed generator (xorshift from `seed`): the graded tests and the harness program
// use the same data, so a test's replay line runs it.
std::vector<unsigned> random_inputs(int n, uint32_t seed);
inline uint32_t inputs_seed(int blocks, int threads) { return uint32_t(blocks * 1000 + threads); }
// A DNA sequence (A, C, G, T) of n letters.
std::string random_sequence(int n, uint32_t seed);

// ---- tasks 1-7: the exchange ---------------------------------------------------------------------
struct ExchangeResult {
  std::vector<unsigned> values;  // every thread's value after the last round
  std::vector<Report> reports;   // the simulator's reports (none on a GPU)
  int blocks = 0;                // the blocks launched (blocks = 0 asks coresident())
  bool stuck = false;            // keep_stuck: the simulator found the launch stuck (hang, deadlock)
  bool faulted = false;          // task 10 with keep_stuck: a launch failed otherwise (a fault:
                                 // an access outside the barrier's state); values empty
  bool refused = false;          // grid-sync: the cooperative launch was refused
  std::string error;             // CUDA's message when refused or stuck
  bool first_launch_right = false;  // task 10: the first of the two launches gave the exchange's
                                    // values with nothing reported (the harness's own host check)
  bool barrier_used = false;     // a GPU barrier's counters or arrays changed (not all still 0;
                                 // always true for the sense-reversing barrier after an even number
                                 // of rounds, which a right one ends at 0)
};
// `rounds` rounds of the exchange of `in` (blocks x threads values) with method w. blocks = 0: the
// student's coresident_blocks() for the method's kernel. keep_stuck: a stuck launch is a result
// (stuck = true) instead of a CudaFailure. Task 10 (own): two launches of exchange_gpu on one
// barrier state, zeroed before the first only: `rounds` rounds, then `rounds` + 1 more on the first
// launch's values (each launch counts its rounds from 0).
ExchangeResult run_exchange(Way w, const std::vector<unsigned>& in, int blocks, int threads, int rounds,
                            bool keep_stuck = false, const char* trace = nullptr);
// `rounds` rounds of the exchange of `in` computed on the host, rounds counted from 0 (the harness
// program's check, and task 10's advice; the graded tests have a reference of their own).
std::vector<unsigned> exchange_on_host(std::vector<unsigned> in, int blocks, int threads, int rounds);
// What to fix, from what a run of the exchange shows (the program and the graded tests print it):
// "" when the run was right and nothing was reported. values_right: the values matched the host's
// exchange; values_unchanged: every value is still its input.
std::string exchange_advice(Way w, const ExchangeResult& r, bool values_right, bool values_unchanged);
// What to change when a GPU barrier (tasks 3-6, 10) took more than two atomics per block and round.
std::string atomics_advice(Way w);
// "TODO(n)", the skeleton's marker of method w's task.
const char* todo_of(Way w);
// Task 7: the student's coresident_blocks() for the kernel that method w launches with `threads`
// threads per block (0 for the CPU methods' kernel, which needs no residency, is not asked).
int coresident(Way w, int threads);

// ---- task 8: bitonic sort ----------------------------------------------------------------------
struct SortResult {
  std::vector<unsigned> keys;  // the input again when the launch got stuck
  std::vector<Report> reports;
  bool stuck = false;  // the launch hung or deadlocked (a grid.sync() not every thread reaches)
};
SortResult run_bitonic(const std::vector<unsigned>& keys, int blocks, int threads, const char* trace = nullptr);

// ---- task 9: Smith-Waterman --------------------------------------------------------------------
struct SwResult {
  std::vector<int> H;  // (m + 1) x (n + 1), row-major; all 0 when the launch got stuck
  std::vector<Report> reports;
  bool stuck = false;  // the launch hung or deadlocked (a grid.sync() not every thread reaches)
};
SwResult run_sw(const std::string& a, const std::string& b, int blocks, int threads, const char* trace = nullptr);
// What to fix in task 8 or 9 after a run with reports ("" without): `step` is what one grid.sync()
// follows ("step (k, j)", "anti-diagonal"), `elements` what a thread's grid-stride loop visits.
std::string grid_app_advice(const std::vector<Report>& reports, const char* step, const char* elements);
// The score parameters (lab07_kernels.cuh): match, mismatch, gap.
struct SwScores {
  int match, mismatch, gap;
};
SwScores sw_scores();

// 9b: the student's barrier counts (apps.cu).
long long predicted_sw_barriers(int m, int n);
long long predicted_bitonic_barriers(int n);

}  // namespace lab07
