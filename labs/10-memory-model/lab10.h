// Lab 10 (the memory model): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab10.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches under the simulator's current settings (synclab::lab::apply), copies the result back
// and collects the simulator's reports. A launch that faults, hangs or deadlocks throws
// synclab::lab::CudaFailure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "synclab_report.h"

namespace lab10 {

using synclab::lab::Report;

// ---- task 1: the predictions (predictions.cu) -----------------------------------------------------
// The student's table, as written: one row per test, "?" where nothing is predicted yet.
const char* predictions_text();
struct Prediction {
  std::string sc, tso, ptx;  // "allowed", "forbidden", or what the row says
};
// The row of `test` ("mp", "sb", "lb", "iriw", "corr", "2+2w"); sc/tso/ptx empty when the table
// has no such row. Throws std::invalid_argument for a row it cannot read.
Prediction prediction(const std::string& test);

// ---- tasks 1-3: litmus tests ----------------------------------------------------------------------
struct LitmusTest {
  const char* name;         // "mp", ..., "mp_fixed", ...
  const char* kernel;       // the kernel's name
  const char* file;         // "harness.cu" (task 1) or "fences.cu"
  int roles;
  bool same_block;          // the roles are warps of one block
  std::vector<std::string> show;  // what an outcome lists: "r0", "r1", "x", "y"
  std::string weak;         // the weak outcome, e.g. "r0=1 r1=0"
};
// Every litmus test of the lab: task 1's pool of eleven first, then those of tasks 2 and 3.
const std::vector<LitmusTest>& litmus_tests();
const LitmusTest& litmus_test(const std::string& name);  // throws std::invalid_argument
// Task 1's six tests for a student id (synclab::lab::student_id(); README, "Your own six tests"):
// without one, mp, sb, lb, 2+2w, iriw and corr; with one, four of mp, sb, lb, 2+2w, s and r, one of
// iriw and wrc, and one of corr, cowr and corw, drawn from the id.
std::vector<std::string> task1_tests(const std::string& student);

struct LitmusResult {
  std::map<std::string, long> counts;  // outcome ("r0=1 r1=0") -> how many instances showed it
  std::vector<Report> reports;
};
// One launch of `instances` instances (on the simulator: 1; on a GPU the roles sit in randomly
// chosen blocks among instances / 4 stress blocks unless `stress` is false). `shuffle_seed`
// picks the placement.
LitmusResult run_litmus(const LitmusTest& t, long instances = 1, bool stress = true, unsigned shuffle_seed = 1,
                        const char* trace = nullptr);

// ---- tasks 2-3: the synchronization a kernel uses, read from its PTX ------------------------------
// The simulator build keeps every kernel's PTX, uncompressed, in the program (the simulator runs
// it); this reads the kernel's own body (and the bodies of the functions it calls) and keeps each
// fence and each access that synchronizes or names system scope. A GPU build holds machine code:
// `found` is false there.
struct SyncUse {
  bool found = false;
  std::vector<std::string> instructions;  // as in the PTX, e.g. "st.release.gpu.b32", "fence.sc.gpu"
  int fence_sc = 0;       // fence.sc.*, membar.* (__threadfence(), seq_cst fences and atomics)
  int fence_acq_rel = 0;  // fence.acq_rel.* (acquire, release and acq_rel fences)
  int acquire_release = 0;  // ld.acquire, st.release, atom/red with .acquire, .release or .acq_rel
  int releases = 0;  // what can release: a release or acq_rel access, or any fence
  int acquires = 0;  // what can acquire: an acquire or acq_rel access, or any fence
  std::set<std::string> scopes;  // "cta", "gpu", "sys": the scopes these name
};
SyncUse sync_use(const std::string& kernel);

// ---- task 4: the hand-over ----------------------------------------------------------------------
struct HandoffResult {
  int sum = 0;   // what block 1 wrote
  int flag = 0;  // the flag after the launch
  std::vector<Report> reports;
};
HandoffResult run_handoff(int n, const char* trace = nullptr);
// Task 4's questions (fences.cu): the student's table, as written, one row per question.
const char* task4_answers_text();
// The answer in the row of `question` ("test", "ptx", "runs", "writer", "reader", "scope"), in
// lower case: "" when the table has no such row, "?" when it is not answered yet.
std::string task4_answer(const std::string& question);

// ---- task 5: publication patterns ------------------------------------------------------------------
enum class Pattern { last_block, look_back, barrier, queue };
const char* name(Pattern p);    // "last-block", "look-back", "barrier", "queue"
Pattern pattern(const std::string& name);  // throws std::invalid_argument
struct PatternResult {
  std::vector<int> values;  // last-block: {out, ticket}; look-back: sum[]; barrier: got[]; queue: got[]
  std::vector<Report> reports;
};
// `blocks`: the grid (queue: items, with 2 blocks).
PatternResult run_pattern(Pattern p, int blocks, const char* trace = nullptr);

}  // namespace lab10
