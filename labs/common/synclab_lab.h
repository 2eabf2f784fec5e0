// Helpers every lab shares: schedules to explore, the simulator's reports as values, error
// checks that throw (so a graded test fails with a message instead of the process exiting),
// and a small sub-command dispatcher for harness programs. Host C++ only (no CUDA types), so
// the graded tests (plain .cpp files) include it too. docs/labs-authoring.md shows how a lab
// uses it.
//
//   for (const synclab::lab::Schedule& s : synclab::lab::schedules(exploration)) {
//     // model, scheduler, seed, checkers on; then the run (the harness collects reports after
//     // each launch)
//     Result r = synclab::lab::run_under(s, [&] { return run_something(...); });
//     ... check r.value, r.reports, and print replay_command(...) when something is wrong
//   }
//
// Contents: 1. Schedule and exploration  2. Reports  3. Errors  4. Sub-commands (and --show, and
// explore(): an exploring command's loop)  5. Inputs
//
// The harnesses' CUDA side (device memory, launches, traces) is in lab_harness.cuh beside this file.
//
// The functions' definitions are in synclab_lab_impl.h. Included as it is, this header brings them
// along as inline functions. A lab's build (cmake/SynclabLab.cmake) and the grader compile with
// -DSYNCLAB_LAB_SEPARATE instead, and link synclab_lab.cpp, compiled once: every harness file,
// harness program and graded test then parses declarations only (about 2 s less per nvcc compile).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/sim_control.h>

#include "synclab_report.h"

namespace synclab::lab {

// ---- 1. Schedule and exploration ---------------------------------------------------------------

// One run's settings. On a GPU there is nothing to choose: model and policy are "gpu" and the
// seed only numbers the run.
struct Schedule {
  std::string model;   // "its" or "lockstep" ("gpu" on a GPU)
  std::string policy;  // "pct", "random" or "rr" ("gpu" on a GPU)
  uint64_t seed = 1;
  unsigned pct_depth = 3;
  std::string memory = "sc";  // the memory model: "sc" or "relaxed" (docs/memory-model.md)

  bool on_gpu() const { return model == "gpu"; }
  // The harness options that run exactly this schedule, e.g. "--model its --sched pct --seed 7"
  // (the pct depth only when it is not the default 3). Empty on a GPU.
  std::string options() const;
  // This run's settings for a message: the harness options above, or "GPU run N" on a GPU.
  std::string replay() const;
};

// The command that runs a lab's harness program (`program`: "lab02") in a message, so that a
// replay runs the code that failed:
//   - SYNCLAB_REPLAY_PROGRAM when it is set: the grader sets it for the graded tests it runs (the
//     harness built from the graded files, or the ./synclab run line that builds it), and so does
//     a lab's graded test program for itself when it knows its harness (tests/labs/catch_main.cpp);
//   - in a harness program, the program itself, as it was started (argv[0]: Commands::run);
//   - else build/bin/sim/<program>, the tree's build of labs/.
std::string program_command(const std::string& program);

// The command line that runs exactly this schedule with a lab's harness program, e.g.
// replay_command("lab02", "peterson --where warps --rounds 2", s) is
// "build/bin/sim/lab02 peterson --where warps --rounds 2 --model its --sched pct --seed 12"
// (program_command says which program runs).
// `args` must name the sub-command and every option the run depends on.
std::string replay_command(const std::string& program, const std::string& args, const Schedule& s);

// "--blocks B --threads T": a launch shape in a replay command's arguments.
std::string shape_args(int blocks, int threads);

// How much to explore. On the simulator: for every model, seeds 1..pct_seeds under pct and
// 1..random_seeds under random (plus one rr run when rr is true). On a GPU: gpu_runs runs.
struct Exploration {
  std::vector<std::string> models{"its", "lockstep"};
  // The memory models: every schedule above runs under each ("sc": interleavings only;
  // "relaxed": also the reorderings the PTX memory model allows).
  std::vector<std::string> memories{"sc"};
  int pct_seeds = 8;
  int random_seeds = 8;
  bool rr = true;
  unsigned pct_depth = 3;
  int gpu_runs = 20;
  // Narrowing (the harness's --sched and --seed): only this policy ("" = all), and with pct or
  // random only this seed (0 = seeds 1..pct_seeds / 1..random_seeds).
  std::string only_policy;
  uint64_t only_seed = 0;
};

inline bool on_simulator() { return synclab::sim::active(); }

// The simulator's device profile ("h100", ...) for the launches made while it lives, then back to
// the program's own (SYNCLAB_DEVICE, or the default "teaching"). "" (or a GPU): no change.
class DeviceProfileScope {
 public:
  explicit DeviceProfileScope(const std::string& profile) : on_(!profile.empty()) {
    if (on_) synclab::sim::set_device(profile.c_str());
  }
  ~DeviceProfileScope() {
    const char* env = std::getenv("SYNCLAB_DEVICE");
    if (on_) synclab::sim::set_device(env && *env ? env : "teaching");
  }
  DeviceProfileScope(const DeviceProfileScope&) = delete;
  DeviceProfileScope& operator=(const DeviceProfileScope&) = delete;

 private:
  bool on_;
};

std::vector<Schedule> schedules(const Exploration& e);

// What a list of schedules covers, for a summary line: "34 schedules (rr; pct seeds 1-8; random
// seeds 1-8; models its and lockstep)", "1 schedule (pct seed 12; model its)", "20 runs on the GPU".
std::string describe(const std::vector<Schedule>& ss);

// Applies a schedule to the launches that follow, with every checker on. No-op on a GPU.
void apply(const Schedule& s, const char* checks = "all");

// apply(s, checks), then run() under s: its result.
template <class Fn>
auto run_under(const Schedule& s, Fn run, const char* checks = "all") -> decltype(run()) {
  apply(s, checks);
  return run();
}

// The one schedule a GPU's run stands for when counting (its, rr, sc: rr never splits a warp's
// access in two): what --profile and the graded counter checks run.
Schedule counting_schedule();

// run() once under counting_schedule() with the simulator's performance counters on
// (docs/profile.md): *counts gets their sums over its launches (zeros if none was counted). Its
// result. Only on the simulator.
template <class Fn>
auto run_counted(Fn run, synclab_sim_counts* counts) -> decltype(run()) {
  synclab::sim::count(true);
  struct Stop {
    ~Stop() { synclab::sim::count(false); }
  } stop;
  auto r = run_under(counting_schedule(), run);
  *counts = synclab_sim_counts{};
  synclab::sim::counters(counts);
  return r;
}

// ---- 2. Reports --------------------------------------------------------------------------------

// struct Report (one simulator report, split into the parts a test checks): synclab_report.h.

// The reports of the most recent finished launch (none on a GPU). Call it after each launch.
std::vector<Report> last_reports();

// Reports of one kind ("" = any kind).
std::vector<Report> of_kind(const std::vector<Report>& rs, const std::string& kind);

// How a command's failed runs went: "wrong in 3 runs", "reported in 2 runs (every result right)"
// or "wrong in 3 runs, reported in 2 more (their results right)". `bad` counts every failed run,
// `reported` those whose results were right but a report was not.
std::string failed_runs(int bad, int reported);

// "race at histogram.cu:41 (write-write race on global memory)" for a failure message.
std::string brief(const Report& r);

// What a command's explored runs found, for its summary: how many runs failed (and how many of
// those only because the simulator reported something), the first failure with the command that
// replays it, and every report.
//
//   RunTally tally;
//   for (const Schedule& s : ss) {
//     Result r = run_under(s, ...);
//     std::string why = tally.add(what_is_wrong(r), r.reports, replay_command("lab03", args, s));
//     ...
//   }
//   tally.print("every run counted right");
//   return tally.passed();
class RunTally {
 public:
  // After one run: `what` is wrong with its result ("" when it is right), its reports, and the
  // command that replays it. A right result with a report is a failed run too ("reported"), named
  // by its first report (brief). Returns the run's failure, "" when the run passed.
  std::string add(std::string what, const std::vector<Report>& reports, const std::string& replay);
  // No run failed (a reported run counts as failed).
  bool passed() const { return bad_ == 0; }
  const std::vector<Report>& reports() const { return reports_; }
  // "  wrong in 3 runs; first: WHAT, in:\n    REPLAY" (failed_runs) and "  (HINT)" when a run failed,
  // or "  ALL_RIGHT"; then, when anything was reported, "  the simulator reported:" and the
  // reports' briefs (print_reports).
  void print(const std::string& all_right, const std::string& hint = "") const;

 private:
  int bad_ = 0, reported_ = 0;
  std::string first_;
  std::vector<Report> reports_;
};

// Under a command's summary: the distinct one-line briefs of the reports of its runs, at most
// `limit` of them (then "...").
void print_reports(const std::vector<Report>& rs, size_t limit = 4);

// What a command prints before it records the trace of one of its runs (--trace FILE).
void announce_trace(const Schedule& s, const std::string& trace);

// How a launch that did not finish got stuck, from its reports: "deadlocked" (every thread
// blocked for good), "hung (spinning)" (threads spinning while nothing they wait for changes),
// "ran out of its step budget", or "" when no report says.
std::string stuck_word(const std::vector<Report>& rs);

// ---- 3. Errors ---------------------------------------------------------------------------------

// Thrown by SYNCLAB_LAB_CHECK: a CUDA call failed (a fault in a kernel, a hang or deadlock the
// simulator detected, a bad launch). Graded tests report the message as the failure.
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A source file's name for a message: from its labs/ folder on ("labs/common/lab_harness.cuh")
// when its path holds one, else as given. The harness files are compiled by their path from the
// tree's root ("labs/01-data-races/harness.cu"), but a header found through an include directory
// carries the checkout's absolute location, which differs from machine to machine.
const char* tree_path(const char* file);

// ---- Per-student variants ------------------------------------------------------------------------
// Tasks with variants (the predictions of labs 01, 02, 03, 04 and 10) draw each student's cases from a
// pool, seeded by the student's id: SYNCLAB_STUDENT in the environment (the grader passes its
// --student, and a Gradescope package the submitter's email). Without an id every student gets the
// default cases, the ones the lab's README shows.
// The id, with spaces around it removed and letters lower-cased ("" when none is set).
std::string student_id();
// k distinct indices of [0, n), in the order drawn: the same for every run with one id and salt
// (the task's name), and a different draw for another id (a pool of n choose k draws).
std::vector<size_t> student_draw(const std::string& id, const std::string& salt, size_t n, size_t k);
// The k elements of `pool` that student_draw picks, in the order drawn.
template <class T>
std::vector<T> student_pick(const std::string& id, const std::string& salt, const std::vector<T>& pool, size_t k) {
  std::vector<T> picked;
  for (size_t i : student_draw(id, salt, pool.size(), k)) picked.push_back(pool[i]);
  return picked;
}
// A lab program's line naming the graded cases of a task with variants: `graded` ("task 3 is graded
// with 64 and 128 threads"), then, with the id (student_id()), "for student id '...'", or without
// one how to see the student's own `own` ("two sizes").
void print_graded_cases(const std::string& graded, const std::string& own);

// Throws CudaFailure for a CUDA call that failed: "file:line: call failed: CUDA's message", then
// one line per report of the simulator about the last launch ("  simulator: race at ...").
[[noreturn]] void throw_cuda_failure(const char* file, int line, const char* call, const char* cuda_message);

}  // namespace synclab::lab

// SYNCLAB_LAB_CHECK(cudaCall): throws synclab::lab::CudaFailure naming the call, the file:line and
// CUDA's message. For harness code (.cu files); needs <cuda_runtime.h>.
#define SYNCLAB_LAB_CHECK(call)                                                                      \
  do {                                                                                               \
    cudaError_t synclab_err_ = (call);                                                               \
    if (synclab_err_ != cudaSuccess)                                                                 \
      synclab::lab::throw_cuda_failure(__FILE__, __LINE__, #call, cudaGetErrorString(synclab_err_)); \
  } while (0)

namespace synclab::lab {

// ---- 4. Sub-commands ---------------------------------------------------------------------------

// The options every exploring sub-command takes (exploration_from reads them).
const std::vector<std::string>& exploration_options();

// Options of a sub-command: "--name value" pairs and "--flag" switches. With a list of valid
// names, any other option is an error that lists the valid ones.
class Args {
 public:
  Args(int argc, char** argv, int first);
  // Throws std::invalid_argument naming the first option not in `valid`.
  void only(const std::vector<std::string>& valid) const;
  bool has(const std::string& k) const { return values_.count(k) != 0; }
  std::string get(const std::string& k, const std::string& fallback) const;
  long long num(const std::string& k, long long fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

// The exploration a harness command runs. By default the graded tests' own: rr, then seeds
// 1..default_seeds of pct and of random, under both warp models. The options narrow or widen it:
//   --seeds N                     pct and random seeds 1..N
//   --model M (or --models M)     its, lockstep, or its,lockstep
//   --sched rr|pct|random         only that scheduler; with --seed S only that seed, so
//   --seed S                      "--model its --sched pct --seed 7" is exactly one run
//   --depth D                     pct's depth (default 3)
//   --memory M                    sc, relaxed, or sc,relaxed (default: default_memories)
//   --runs N                      on a GPU: the number of runs (default default_gpu_runs)
// SYNCLAB_MODEL, SYNCLAB_SCHED, SYNCLAB_SEED, SYNCLAB_PCT_DEPTH and SYNCLAB_MEMORY, when set, act
// as --model, --sched, --seed, --depth and --memory (the options win), so a simulator report's
// "replay with:" line works too.
Exploration exploration_from(const Args& a, int default_seeds, int default_gpu_runs = 20,
                             const std::vector<std::string>& default_memories = {"sc"});

// A harness program's sub-commands: `prog NAME [--options]`, `prog help`, `prog all` (every
// command marked for it, in order). A command returns true when its own checks passed. Each
// command lists the options it takes (exploring commands add exploration_options()); any other
// option is a usage error.
class Commands {
 public:
  using Fn = std::function<bool(const Args&)>;
  Commands(std::string program, std::string about) : program_(std::move(program)), about_(std::move(about)) {}
  // `options`: the option names it takes, without "--"; `explores`: it takes the exploration
  // options too.
  void add(const std::string& name, const std::string& usage, const std::string& help, std::vector<std::string> options,
           Fn fn, bool explores = true, bool in_all = true);
  void usage(FILE* f) const;
  // Returns the process exit status: 0 when the command's checks passed, 1 when not, 2 for a
  // usage error.
  int run(int argc, char** argv) const;

 private:
  struct Entry {
    std::string name, usage, help;
    std::vector<std::string> options;
    Fn fn;
    bool in_all;
  };
  static bool guarded(const Entry& e, const Args& a);
  std::string program_, about_;
  std::vector<Entry> list_;
};

// ---- Which run --trace records: --show ----------------------------------------------------------
// An exploring command records one of its runs for synclab-viz with --trace FILE: the first run
// that --show WORD names. Every such command of every lab takes the same three words:
//   any    the first run
//   bad    the first run that failed the command's check (a wrong result, a report, a hang)
//   good   the first run that passed it
// and some take words of their own for one kind of run, listed in their usage (lab 02's "stuck"
// and "overlap", lab 03's "deadlock" and "finished", lab 10's "weak"; lab 01's increment takes a
// number: the run that ended with that count). Any other word is a usage error that names the
// valid ones, before anything runs. A program records at most one trace: the first run chosen.
// When --trace was given and no run was chosen, Commands::run says so after the command.
class TraceChoice {
 public:
  // `fallback`: the word without --show; `own`: the command's own words ("N": any whole number).
  TraceChoice(const Args& a, const std::string& fallback, const std::vector<std::string>& own = {});
  const std::string& word() const { return word_; }
  const std::string& file() const { return file_; }
  // Whether to record this run: --trace was given, the program has recorded none yet, and --show
  // names the run: `failed` for bad and good; a word of the command's own when it is `kind`, the
  // command's word for this run ("stuck", std::to_string(count), ...; "" when none fits).
  bool wants(bool failed, const std::string& kind = "") const;
  // Says which run is recorded (announce_trace) and notes that the program has recorded one.
  void recording(const Schedule& s) const;

 private:
  std::string word_, file_;
};

// One exploring command's loop over its schedules (labs 06, 08 and 09; labs 02 and 10 keep
// summaries of their own): runs `run` under each schedule (run_under), takes a run whose launch did
// not finish as failed ("NOT_FINISHED (deadlocked)", with detail(outcome) after it when that says
// more), tallies failed and reported runs with their replay lines (RunTally), records the run
// --show names when --trace is given, then prints "TITLE, SCHEDULES:", the tally (with HINT when a
// run failed) and the first report in full. True when no run failed.
//   run(s, trace)  one run under schedule s, recorded to `trace` when not null: returns what is
//                  wrong with its result ("" when right) and its outcome (finished, reports, error)
//   replay_of(s)   the command line that replays the run under s
struct Exploring {
  std::string title, hint;
  std::string not_finished = "the launch did not finish";
  std::string bad_word;  // the command's own --show word for a failed run ("" when none)
};
struct NoDetail {
  template <class Outcome>
  std::string operator()(const Outcome&) const {
    return "";
  }
};
template <class Run, class Replay, class Detail = NoDetail>
bool explore(const TraceChoice& trace, const Exploring& e, const std::vector<Schedule>& ss, Run run, Replay replay_of,
             Detail detail = Detail{}) {
  RunTally tally;
  for (const Schedule& s : ss) {
    auto [what, out] = run_under(s, [&] { return run(s, nullptr); });
    if (what.empty() && !out.finished) {
      const std::string how = stuck_word(out.reports);
      what = e.not_finished + " (" + (how.empty() ? out.error : how) + ")" + detail(out);
    }
    what = tally.add(what, out.reports, replay_of(s));
    if (trace.wants(!what.empty(), what.empty() ? "" : e.bad_word)) {
      trace.recording(s);
      apply(s);
      run(s, trace.file().c_str());
    }
  }
  std::printf("%s, %s:\n", e.title.c_str(), describe(ss).c_str());
  tally.print("every run was right", e.hint);
  if (!tally.reports().empty()) std::printf("  the first report in full:\n%s\n", tally.reports().front().text.c_str());
  return tally.passed();
}

// ---- 5. Inputs -------------------------------------------------------------------------------

// The generator the labs draw their inputs from (marks, keys, graphs): xorshift64 (Marsaglia).
// A harness function that takes a seed gives the same data to the harness program and to a
// graded test.
struct Xorshift64 {
  uint64_t state;
  uint64_t next() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  }
};

// A table of short answers a student fills in, returned by a function of a student file (lab 09's
// task2_answers_text(), lab 10's predictions_text() and task4_answers_text()): each line's words
// in lower case, the text after # left out, empty lines skipped.
std::vector<std::vector<std::string>> answer_rows(const char* text);
// The second word of the row whose first word is `question`; "" when no row has it.
std::string answer_in(const char* text, const std::string& question);

}  // namespace synclab::lab

#if !defined(SYNCLAB_LAB_SEPARATE)
#include "synclab_lab_impl.h"
#endif
