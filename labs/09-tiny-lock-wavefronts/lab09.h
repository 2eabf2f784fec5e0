// Lab 09 (tiny-lock wavefronts): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab09.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// sets up the memory, launches the student's kernel under the simulator's current settings
// (synclab::lab::apply) and collects the simulator's reports. A launch that gets stuck or fails does
// not throw: the result says finished = false and carries the error, the reports and, where the
// kernel keeps a LockLog, who held which lock bit (`stuck`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_lab.h"

namespace lab09 {

using synclab::lab::Report;

struct Outcome {
  bool finished = true;         // false: the launch failed (hang, deadlock, fault)
  std::string error;            // CUDA's message when it failed
  std::vector<Report> reports;  // the simulator's reports (none on a GPU)
  std::string stuck;            // a stuck launch's lock bits: who held which, who waited for what
};

// ---- task 1: channels -----------------------------------------------------------------------------------
struct ChannelRun : Outcome {
  std::vector<int> out;  // out[lane * values + i]: what lane `lane` of warp 1 got i-th
};
ChannelRun run_channels(int values, const char* trace = nullptr);

// Tasks 2 and 3: the student's kernel, or the harness's naive first try (tl_lock, work, tl_unlock),
// which shows the deadlock the task is about.
enum class Version { yours, naive };

// ---- task 2: counting under a tiny lock (the SIMD deadlock) ---------------------------------------------
// The keys of a run: n keys in 0..bins-1 from `seed` (lanes of one warp share keys).
std::vector<int> count_keys(int n, int bins, uint64_t seed);
struct CountRun : Outcome {
  std::vector<int> hist;  // hist[b]: the counter of bin b
};
CountRun run_count(int n, int bins, uint64_t seed, const char* trace = nullptr, Version v = Version::yours);
// Task 2's questions: the answer of one row of the student's table (locks.cu,
// task2_answers_text(), TODO(2q)); "" when the table has no such row.
std::string task2_answer(const std::string& question);

// ---- task 3: transfers (the alias deadlock) -------------------------------------------------------------
struct Transfer {
  int from, to, amount;
};
// `warps` transfers from `seed`; every third one is between accounts 1024 apart (their lock bits
// alias), some pairs of transfers go opposite ways between the same two accounts, and some pairs
// (warps 4 and 5 of 6) take the same two lock bits through aliasing accounts, where the order of
// the addresses is not the order of the bits.
std::vector<Transfer> transfer_list(int warps, uint64_t seed);
std::vector<int> opening_balances();  // kAccounts balances
struct TransferRun : Outcome {
  std::vector<int> balance;  // the accounts at the end
};
TransferRun run_transfers(int warps, uint64_t seed, const char* trace = nullptr, Version v = Version::yours);

// ---- task 4: the 16-warp validation kernel ---------------------------------------------------------------
extern const char* const kSchemeNames[7];     // atom_lock, warp_barr, shrd_lock, tiny_lock, warp_vote, mbarrier, flag
int scheme_index(const std::string& name);    // throws std::invalid_argument
std::vector<int> chain_input(uint64_t seed);  // A[0..31]
struct ChainRun : Outcome {
  std::vector<int> out;  // A[32..543]
  long long cycles = 0;  // warp 15's clock64() cycles from the barrier to the end of its hop
};
ChainRun run_chain(int scheme, uint64_t seed, const char* trace = nullptr);
// Task 4's question: the answer of one row of the student's table (chain.cu,
// task4_answers_text(), TODO(4q)); "" when the table has no such row.
std::string task4_answer(const std::string& question);

// ---- task 6: a hand-over of your own design -------------------------------------------------------
constexpr int kPipeWarpsHost = 8;  // kPipeWarps (lab09_kernels.cuh): the pipeline's warps
struct PipeRun : Outcome {
  std::vector<int> out;  // out[lane * values + i]: the last warp's i-th value of lane `lane`
};
PipeRun run_pipeline(int values, const char* trace = nullptr);

// ---- task 5: Needleman-Wunsch ----------------------------------------------------------------------------
enum class NwVersion { wavefront, dataflow };        // task 5a, task 5b
const char* name(NwVersion v);                       // "wavefront", "dataflow"
NwVersion nw_version(const std::string& name);       // throws std::invalid_argument
std::vector<int> nw_sequence(int n, uint64_t seed);  // n letters 0..3 (b uses seed + 1000)
struct NwRun : Outcome {
  std::vector<int> S;  // (n + 1) x (n + 1), row-major
};
// n: a multiple of 16. Row 0 and column 0 hold -j and -i (the gap penalties).
NwRun run_nw(NwVersion v, int n, uint64_t seed, const char* trace = nullptr);

}  // namespace lab09
