// Lab 01 (data races): the harness's host API. Host C++ only, so the graded tests
// (tests/labs/lab01.test.cpp) and the harness program (main.cu) both use it. Every run_* function
// launches kernels under the simulator's current settings (synclab::lab::apply), copies the
// result back and collects the simulator's reports after every launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synclab_report.h"

namespace lab01 {

using synclab::lab::Report;

// ---- task 1: ++x[0] -------------------------------------------------------------------------
enum class IncrementKernel { racy, fixed };

struct IncrementResult {
  int value = 0;                 // x[0] after the kernel (x[0] starts at 0)
  std::vector<Report> reports;
};
IncrementResult run_increment(IncrementKernel kernel, int blocks, int threads_per_block,
                              const char* trace = nullptr);

// The student's prediction (increment.cu): every final value x[0] can have after
// increment_racy<<<blocks, threads_per_block>>> with x[0] == 0 before.
std::vector<int> predicted_final_values(int blocks, int threads_per_block);

// The two launches task 1a is graded on for a student id (synclab::lab::student_id()): blocks of
// one thread (<<<2,1>>>; with an id, 2 to 4 blocks) and blocks of several threads (<<<1,2>>>; with
// an id, one of <<<1,2>>>, <<<1,4>>>, <<<1,32>>>, <<<2,2>>>, <<<1,64>>>, <<<2,32>>>).
struct Launch {
  int blocks = 1, threads = 1;
};
std::vector<Launch> task1a_launches(const std::string& student);

// ---- task 2: the grading histogram ------------------------------------------------------------
// Grades S, A, B, C, D, E, U from marks 0..100 (seed 004, classwork "Grading": S from 90, A from
// 80, ..., E from 40, U below).
constexpr int kGrades = 7;
extern const char* const kGradeNames[kGrades];

enum class HistogramKernel { racy, atomic, privatized };
const char* name(HistogramKernel k);

struct HistogramResult {
  std::vector<unsigned> bins;    // kGrades counts, in the order S A B C D E U
  std::vector<Report> reports;
};
HistogramResult run_histogram(HistogramKernel kernel, const std::vector<int>& marks, int blocks,
                              int threads_per_block, const char* trace = nullptr);

// n marks 0..100 from a fixed generator (xorshift from `seed`). The graded tests and the harness
// program (`lab01 histogram`) count the same marks, so a test's replay line runs the same data.
std::vector<int> class_marks(int n, uint32_t seed);
// The seed both use for n marks counted by `blocks` blocks (`--data-seed` overrides it).
inline uint32_t marks_seed(int n, int blocks) { return uint32_t(n * 31 + blocks); }

// ---- task 3: SSSP relaxation ------------------------------------------------------------------
constexpr unsigned kInfinity = 0xffffffffu;

// A directed graph in compressed sparse rows: the edges of node u are
// neighbour[row_start[u] .. row_start[u+1]), with weight[] beside them.
struct Graph {
  int nodes = 0;
  std::vector<int> row_start;
  std::vector<int> neighbour;
  std::vector<unsigned> weight;
};

enum class RelaxKernel { racy, atomic };
const char* name(RelaxKernel k);

struct RelaxResult {
  std::vector<unsigned> dist;
  int rounds = 0;                // launches made
  std::vector<Report> reports;   // of every launch
};
// One round: dist_out starts as a copy of dist_in, then every node u relaxes its edges into it
// (dist_out[v] = min(dist_out[v], dist_in[u] + w)).
RelaxResult run_relax_round(RelaxKernel kernel, const Graph& g, const std::vector<unsigned>& dist_in,
                            int blocks, int threads_per_block, const char* trace = nullptr);
// The graphs of the graded tests and of `lab01 sssp`: many nodes point at the same few hubs
// (nodes 0..3) from different warps, so a lost update in a round shows, plus a chain 0 -> 1 ->
// ... so that every node is reachable. From a fixed generator (xorshift from `seed`).
Graph hub_graph(int nodes, uint32_t seed);
// Where the graded one-round case (and `lab01 sssp --round`) starts: every even node v knows the
// distance 3v + 5, the odd nodes none yet (kInfinity).
std::vector<unsigned> half_known(int nodes);

// Rounds until nothing changes (at most g.nodes rounds): shortest distances from source.
RelaxResult run_sssp(RelaxKernel kernel, const Graph& g, int source, int blocks, int threads_per_block,
                     const char* trace = nullptr);

}  // namespace lab01
