// How the simulator runs kernels: warp model, scheduler, seed, device profile, budget, checks.
// Read from the environment (SYNCLAB_*) at start-up; the control API and synclab-run change it.
#pragma once

#include <cstdint>
#include <string>

namespace synclab::sim {

enum class WarpModel { Its, Lockstep };
enum class SchedPolicy { RoundRobin, Random, Pct };
// The order in which blocks are handed to SMs. Hardware promises none; `reverse` and `random`
// expose code that assumes blockIdx order (a chained scan waiting on block b-1).
enum class DispatchOrder { Default, InOrder, Reverse, Random };

struct Config {
  WarpModel model = WarpModel::Its;
  SchedPolicy sched = SchedPolicy::RoundRobin;
  uint64_t seed = 1;
  uint32_t pct_depth = 3;              // PCT bug depth d (number of priority change points + 1)
  uint64_t budget = 2'000'000'000ull;  // warp-steps per launch before giving up (last resort)
  std::string device = "teaching";     // device profile name
  bool lockstep_taken_first = true;    // lockstep: which side of a divergent branch runs first
  DispatchOrder dispatch = DispatchOrder::Default;  // SYNCLAB_DISPATCH: default = in order under rr,
                                                    // random under the random and pct schedulers
  bool checks = true;                  // SYNCLAB_CHECK: race/sync/init/mem checkers
  std::string check_list = "all";
  std::string trace_path;              // SYNCLAB_TRACE: empty = no trace
  bool quiet = false;                  // SYNCLAB_QUIET: no report text on stderr

  // Reads SYNCLAB_MODEL, SYNCLAB_SCHED, SYNCLAB_SEED, SYNCLAB_PCT_DEPTH, SYNCLAB_BUDGET,
  // SYNCLAB_DEVICE, SYNCLAB_LOCKSTEP_ORDER (taken|fallthrough), SYNCLAB_DISPATCH (order|reverse|random), SYNCLAB_CHECK, SYNCLAB_TRACE,
  // SYNCLAB_QUIET. An invalid value prints a message naming the variable and exits with 2.
  static Config from_environment();

  // Whether one checker ("race", "sync", "init", "mem", "leak") is on. "all" turns on every
  // checker except "leak" (the leak summary at exit is asked for by name: all,leak).
  bool check_enabled(const char* name) const;
};

// "" when every item of a SYNCLAB_CHECK list is known, else a message naming the bad item.
std::string check_list_problem(const std::string& list);

const char* model_name(WarpModel m);
const char* sched_name(SchedPolicy s);
bool parse_model(const std::string& s, WarpModel* out);
bool parse_sched(const std::string& s, SchedPolicy* out);

}  // namespace synclab::sim
