// How the simulator runs kernels: warp model, scheduler, seed, device profile, budget, checks.
// Read from the environment (SYNCLAB_*) at start-up; the control API and synclab-run change it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace synclab::trace {
struct Schedule;
}

namespace synclab::sim {

struct OutcomeAim;  // sim/memory/memory_model.h

enum class WarpModel { Its, Lockstep };
// The unit of ordering inside a warp: under lockstep a warp's lanes run every instruction
// together, so the warp is the unit that program order follows (one thread, as far as the race
// checker's clocks, the relaxed model's views, barrier arrivals and load buffering go); under its
// every lane is a thread of its own.
constexpr bool warp_is_unit(WarpModel m) { return m == WarpModel::Lockstep; }
// Which executions the simulator produces: sequentially consistent interleavings only, or also the
// reorderings the PTX memory model allows (sim/memory/, docs/memory-model.md).
enum class MemoryModel { Sc, Relaxed };
enum class SchedPolicy { RoundRobin, Random, Pct };
// The order in which blocks are handed to SMs. Hardware promises none; `reverse` and `random`
// expose code that assumes blockIdx order (a chained scan waiting on block b-1).
enum class DispatchOrder { Default, InOrder, Reverse, Random };
// The order in which work queued on different streams runs (sim/runtime/device_thread.h). CUDA
// promises only each stream's own order and the waits the program asks for; `random` runs any
// task whose stream and event waits are met, chosen by the seed, so that a missing
// cudaStreamSynchronize or cudaStreamWaitEvent between streams shows up in some runs.
enum class StreamOrder { Default, InOrder, Random };

struct Config {
  WarpModel model = WarpModel::Its;
  MemoryModel memory = MemoryModel::Sc;  // SYNCLAB_MEMORY
  // SYNCLAB_MEMORY_CHECK=1: a relaxed launch records its execution graph and the oracle of the PTX
  // model's axioms checks it at the launch's end (sim/memory/oracle/, docs/memory-model.md); an
  // execution the axioms forbid is reported as a bug of the simulator.
  bool memory_check = false;
  SchedPolicy sched = SchedPolicy::RoundRobin;
  // SYNCLAB_SCHED=replay (or SYNCLAB_SCHEDULE alone): traced launches follow the choices of a
  // schedule file (SYNCLAB_SCHEDULE, sim/sched/replay_scheduler.h), then another policy takes over:
  // SYNCLAB_SCHED_AFTER, else the file's `then` line (both: replay_after), else `sched` (the
  // program's own choice, else SYNCLAB_SCHED if it names a policy, else rr). The file is read
  // once, at start-up (from_environment).
  bool replay = false;
  std::string schedule_path;                          // SYNCLAB_SCHEDULE
  std::shared_ptr<const trace::Schedule> schedule;    // the parsed file (replay)
  bool sched_after_set = false;                       // SYNCLAB_SCHED_AFTER was given...
  SchedPolicy sched_after = SchedPolicy::RoundRobin;  // ...and this is it
  // The policy after the file's choices when SYNCLAB_SCHED_AFTER or the file's `then` names one:
  // it stays when a program sets its own scheduler (synclab_sim_set_scheduler, as a lab harness
  // does for the run it records), which otherwise runs after the choices.
  std::optional<SchedPolicy> replay_after;
  uint64_t seed = 1;
  // (set by a program, no variable) a relaxed launch prefers the choices that give this outcome
  // (synclab-litmus run --aim); null: the seed alone decides.
  std::shared_ptr<const OutcomeAim> aim;
  uint32_t pct_depth = 3;                           // PCT bug depth d (number of priority change points + 1)
  uint64_t budget = 2'000'000'000ull;               // warp-steps per launch before giving up (last resort)
  std::string device = "teaching";                  // device profile name
  bool lockstep_taken_first = true;                 // lockstep: which side of a divergent branch runs first
  DispatchOrder dispatch = DispatchOrder::Default;  // SYNCLAB_DISPATCH: default = in order under rr,
                                                    // random under the random and pct schedulers
  StreamOrder streams = StreamOrder::Default;       // SYNCLAB_STREAMS: default = in submission order
                                                    // under rr, random under random and pct
  bool checks = true;                               // SYNCLAB_CHECK: false for "none"
  std::string check_list = "all";                   // the list as given (names from checkers())
  std::string trace_path;                           // SYNCLAB_TRACE: empty = no trace
  // SYNCLAB_PROFILE: "1" prints each launch's performance counters (perf_counters.h) on stderr;
  // any other value is a file that gets one JSON line per launch; empty: off.
  std::string profile;
  bool count = false;  // the control API's synclab_sim_count(1): count without printing
  bool quiet = false;  // SYNCLAB_QUIET: no report text on stderr
  // SYNCLAB_VOLATILE=data: the race checker treats volatile loads and stores as plain data (they
  // order nothing), as race detectors built on HRF do; the default (strong) follows the PTX memory
  // model's definition of a data race, where volatile accesses are strong (docs/checkers.md).
  bool volatile_data = false;
  // SYNCLAB_REPORTS=all: every report instance is kept and printed. The default (once) keeps one
  // report per launch and pair of lines (with a count of the others) and prints a report that
  // an earlier launch of the process already printed only once (sim/exec/report_log.h).
  bool reports_all = false;
  // SYNCLAB_FAST=0: the interpreter's fast paths (arithmetic handlers, row forms of ld/st, the
  // scalar load/store path, fast_alu) are off and every instruction takes the general path. The
  // results must not differ: the conformance corpus runs both ways (tests/CMakeLists.txt).
  bool fast = true;
  // SYNCLAB_ERROR_EXITCODE: the exit status of a program that exits 0 although its kernels
  // produced error reports (0: the program's own status stands). See sim/runtime/exit_status.h.
  int error_exitcode = 1;

  // Reads SYNCLAB_MODEL, SYNCLAB_MEMORY (sc|relaxed), SYNCLAB_SCHED, SYNCLAB_SEED, SYNCLAB_PCT_DEPTH, SYNCLAB_BUDGET,
  // SYNCLAB_DEVICE, SYNCLAB_LOCKSTEP_ORDER (taken|fallthrough), SYNCLAB_DISPATCH
  // (order|reverse|random), SYNCLAB_STREAMS (order|random), SYNCLAB_CHECK, SYNCLAB_VOLATILE (strong|data),
  // SYNCLAB_TRACE, SYNCLAB_QUIET, SYNCLAB_REPORTS, SYNCLAB_FAST, SYNCLAB_ERROR_EXITCODE, SYNCLAB_SCHEDULE,
  // SYNCLAB_SCHED_AFTER, SYNCLAB_MEMORY_CHECK (0|1), SYNCLAB_PROFILE. An invalid value prints a message naming the
  // variable and its allowed values and exits with 2; a schedule file that cannot be read or parsed prints `synclab:
  // schedule FILE:LINE: why` and exits with 3. load_schedule reads and parses a schedule file
  // (sim/sched/replay_scheduler.h: load_schedule_or_exit), or exits.
  using ScheduleLoader = std::function<std::shared_ptr<const trace::Schedule>(const std::string&)>;
  static Config from_environment(const ScheduleLoader& load_schedule);  // exits with status 2 on a bad value
  // Applies one SYNCLAB_* variable: "" when the value is valid (or empty: unset), else what the
  // variable expects ("sc or relaxed"); the configuration is then unchanged.
  std::string set(const std::string& name, const std::string& value);
  static const std::vector<std::string>& variables();  // the names set() knows, in order

  // Whether one checker of checkers() is on. "all" turns on every checker whose in_all is set.
  bool check_enabled(const char* name) const;
  // Whether work of different streams may run out of submission order (SYNCLAB_STREAMS, or its
  // default for the scheduler).
  bool streams_random() const {
    return streams == StreamOrder::Random || (streams == StreamOrder::Default && sched != SchedPolicy::RoundRobin);
  }
};

// The switchable checkers: the one list that SYNCLAB_CHECK, synclab-run --check, the control
// API's set_checks, their error messages and synclab-run --help take their names from.
struct CheckerInfo {
  const char* name;
  bool in_all;       // turned on by "all" (the default)
  const char* what;  // a few words for help texts
};
const std::vector<CheckerInfo>& checkers();
// "race, sync, init, leak": the names, for messages.
std::string checker_names();
// What a check list may be: "all, none, or a comma-separated list of race, sync, init, leak".
std::string check_list_syntax();
// "" when a SYNCLAB_CHECK value is valid ("all", "none", or a list of checker names, "all" among
// them), else a message naming the bad item and the allowed names.
std::string check_list_problem(const std::string& list);
// Whether a valid check list turns every checker off ("none").
bool check_list_is_none(const std::string& list);

const char* model_name(WarpModel m);
const char* memory_name(MemoryModel m);
bool parse_memory(const std::string& s, MemoryModel* out);
const char* sched_name(SchedPolicy s);
bool parse_model(const std::string& s, WarpModel* out);
bool parse_sched(const std::string& s, SchedPolicy* out);

}  // namespace synclab::sim
