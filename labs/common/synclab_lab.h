// Helpers every lab shares: schedules to explore, the simulator's reports as values, error
// checks that throw (so a graded test fails with a message instead of the process exiting),
// and a small sub-command dispatcher for harness programs. Host C++ only (no CUDA types), so
// the graded tests (plain .cpp files) include it too. docs/labs-authoring.md shows how a lab
// uses it.
//
//   for (const synclab::lab::Schedule& s : synclab::lab::schedules(exploration)) {
//     synclab::lab::apply(s);               // model, scheduler, seed, checkers on
//     Result r = run_something(...);         // the harness collects reports after each launch
//     ... check r.value, r.reports, and say s.replay() when something is wrong
//   }
//
// Contents: 1. Schedule and exploration  2. Reports  3. Errors  4. Sub-commands
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/sim_control.h>

namespace synclab::lab {

// ---- 1. Schedule and exploration ---------------------------------------------------------------

// One run's settings. On a GPU there is nothing to choose: model and policy are "gpu" and the
// seed only numbers the run.
struct Schedule {
  std::string model;   // "its" or "lockstep" ("gpu" on a GPU)
  std::string policy;  // "pct", "random" or "rr" ("gpu" on a GPU)
  uint64_t seed = 1;
  unsigned pct_depth = 3;

  bool on_gpu() const { return model == "gpu"; }
  // The environment that replays this run of the harness program, e.g.
  // "SYNCLAB_MODEL=its SYNCLAB_SCHED=pct SYNCLAB_SEED=7 SYNCLAB_PCT_DEPTH=3".
  std::string replay() const {
    if (on_gpu()) return "GPU run " + std::to_string(seed) + " (a GPU run cannot be replayed)";
    std::string s = "SYNCLAB_MODEL=" + model + " SYNCLAB_SCHED=" + policy;
    if (policy != "rr") s += " SYNCLAB_SEED=" + std::to_string(seed);
    if (policy == "pct") s += " SYNCLAB_PCT_DEPTH=" + std::to_string(pct_depth);
    return s;
  }
};

// How much to explore. On the simulator: for every model, seeds 1..pct_seeds under pct and
// 1..random_seeds under random (plus one rr run when rr is true). On a GPU: gpu_runs runs.
struct Exploration {
  std::vector<std::string> models{"its", "lockstep"};
  int pct_seeds = 8;
  int random_seeds = 8;
  bool rr = true;
  unsigned pct_depth = 3;
  int gpu_runs = 20;
};

inline bool on_simulator() { return synclab::sim::active(); }

inline std::vector<Schedule> schedules(const Exploration& e) {
  std::vector<Schedule> out;
  if (!on_simulator()) {
    for (int i = 1; i <= e.gpu_runs; ++i) out.push_back({"gpu", "gpu", uint64_t(i), 0});
    return out;
  }
  for (const std::string& m : e.models) {
    if (e.rr) out.push_back({m, "rr", 1, e.pct_depth});
    for (int i = 1; i <= e.pct_seeds; ++i) out.push_back({m, "pct", uint64_t(i), e.pct_depth});
    for (int i = 1; i <= e.random_seeds; ++i) out.push_back({m, "random", uint64_t(i), e.pct_depth});
  }
  return out;
}

// Applies a schedule to the launches that follow, with every checker on. No-op on a GPU.
inline void apply(const Schedule& s, const char* checks = "all") {
  if (s.on_gpu() || !on_simulator()) return;
  synclab::sim::set_model(s.model.c_str());
  synclab::sim::set_scheduler(s.policy.c_str(), s.seed, s.pct_depth);
  synclab::sim::set_checks(checks);
  synclab::sim::clear_reports();
}

// ---- 2. Reports --------------------------------------------------------------------------------

// One simulator report (docs/simulator.md, docs/checkers.md), split into the parts a test checks.
struct Report {
  std::string kind;    // "race", "sync", "init", "mem", "hang", "deadlock", "fault", ...
  bool error = true;   // ERROR (false: WARNING, e.g. a race between lanes of one warp under its)
  std::string title;   // the first line after "(kind): "
  std::string where;   // "file.cu:LINE" of the report ("" when it names no line)
  std::string text;    // the whole report as printed

  // "file.cu:LINE" without the directories.
  std::string short_where() const {
    size_t slash = where.find_last_of('/');
    return slash == std::string::npos ? where : where.substr(slash + 1);
  }
  // The source line, or 0.
  int line() const {
    size_t colon = where.find_last_of(':');
    return colon == std::string::npos ? 0 : std::atoi(where.c_str() + colon + 1);
  }
};

// The reports of the most recent finished launch (none on a GPU). Call it after each launch.
inline std::vector<Report> last_reports() {
  std::vector<Report> out;
  const int n = synclab::sim::report_count();
  for (int i = 0; i < n; ++i) {
    Report r;
    r.kind = synclab::sim::report_kind(i);
    r.text = synclab::sim::report(i);
    if (r.kind == "info") continue;
    r.error = r.text.find("SyncLab WARNING") == std::string::npos;
    size_t k = r.text.find("): ");
    size_t nl = r.text.find('\n');
    if (k != std::string::npos && k < nl) r.title = r.text.substr(k + 3, nl - k - 3);
    size_t at = r.text.find("     at ");
    if (at != std::string::npos) {
      size_t begin = at + 8, end = r.text.find_first_of(" \n", begin);
      r.where = r.text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    }
    out.push_back(r);
  }
  return out;
}

// Reports of one kind ("" = any kind).
inline std::vector<Report> of_kind(const std::vector<Report>& rs, const std::string& kind) {
  std::vector<Report> out;
  for (const Report& r : rs)
    if (kind.empty() || r.kind == kind) out.push_back(r);
  return out;
}

// "race at histogram.cu:41 (write-write race on global memory)" for a failure message.
inline std::string brief(const Report& r) {
  std::string s = std::string(r.error ? "" : "warning: ") + r.kind;
  if (!r.where.empty()) s += " at " + r.short_where();
  if (!r.title.empty()) s += " (" + r.title + ")";
  return s;
}

// ---- 3. Errors ---------------------------------------------------------------------------------

// Thrown by SYNCLAB_LAB_CHECK: a CUDA call failed (a fault in a kernel, a hang or deadlock the
// simulator detected, a bad launch). Graded tests report the message as the failure.
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace synclab::lab

// SYNCLAB_LAB_CHECK(cudaCall): throws synclab::lab::CudaFailure naming the call, the file:line and
// CUDA's message. For harness code (.cu files); needs <cuda_runtime.h>.
#define SYNCLAB_LAB_CHECK(call)                                                                   \
  do {                                                                                            \
    cudaError_t synclab_err_ = (call);                                                            \
    if (synclab_err_ != cudaSuccess) {                                                            \
      std::ostringstream synclab_msg_;                                                            \
      synclab_msg_ << __FILE__ << ":" << __LINE__ << ": " << #call                                \
                   << " failed: " << cudaGetErrorString(synclab_err_);                           \
      for (const synclab::lab::Report& r_ : synclab::lab::last_reports())                         \
        synclab_msg_ << "\n  simulator: " << synclab::lab::brief(r_);                             \
      throw synclab::lab::CudaFailure(synclab_msg_.str());                                        \
    }                                                                                             \
  } while (0)

namespace synclab::lab {

// ---- 4. Sub-commands ---------------------------------------------------------------------------

// Options of a sub-command: "--name value" pairs and "--flag" switches.
class Args {
 public:
  Args(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "'");
      a = a.substr(2);
      if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) values_[a] = argv[++i];
      else values_[a] = "";
    }
  }
  bool has(const std::string& k) const { return values_.count(k) != 0; }
  std::string get(const std::string& k, const std::string& fallback) const {
    auto it = values_.find(k);
    return it == values_.end() ? fallback : it->second;
  }
  long long num(const std::string& k, long long fallback) const {
    auto it = values_.find(k);
    if (it == values_.end()) return fallback;
    char* end = nullptr;
    long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end) throw std::invalid_argument("--" + k + " needs a whole number, not '" + it->second + "'");
    return v;
  }

 private:
  std::map<std::string, std::string> values_;
};

// A harness program's sub-commands: `prog NAME [--options]`, `prog help`, `prog all` (every
// command marked for it, in order). A command returns true when its own checks passed.
class Commands {
 public:
  using Fn = std::function<bool(const Args&)>;
  Commands(std::string program, std::string about) : program_(std::move(program)), about_(std::move(about)) {}
  void add(const std::string& name, const std::string& usage, const std::string& help, Fn fn,
           bool in_all = true) {
    list_.push_back({name, usage, help, std::move(fn), in_all});
  }
  void usage(FILE* f) const {
    std::fprintf(f, "%s\n\nusage: %s COMMAND [options]\n\ncommands:\n", about_.c_str(), program_.c_str());
    for (const Entry& e : list_)
      std::fprintf(f, "  %-40s %s\n", (e.name + (e.usage.empty() ? "" : " " + e.usage)).c_str(), e.help.c_str());
    std::fprintf(f, "  %-40s %s\n  %-40s %s\n", "all", "run every task's check, in order", "help", "this text");
    std::fprintf(f, "\nOn the simulator, SYNCLAB_MODEL / SYNCLAB_SCHED / SYNCLAB_SEED choose the run "
                    "(docs/simulator.md);\nexploring commands set them per run themselves.\n");
  }
  // Returns the process exit status: 0 when the command's checks passed, 1 when not, 2 for a
  // usage error.
  int run(int argc, char** argv) const {
    if (argc < 2) { usage(stderr); return 2; }
    std::string cmd = argv[1];
    if (cmd == "help" || cmd == "--help" || cmd == "-h") { usage(stdout); return 0; }
    try {
      if (cmd == "all") {
        Args none(argc, argv, 2);
        int failed = 0;
        for (const Entry& e : list_) {
          if (!e.in_all) continue;
          std::printf("==== %s %s\n", program_.c_str(), e.name.c_str());
          bool ok = guarded(e, none);
          std::printf("==== %s: %s\n\n", e.name.c_str(), ok ? "OK" : "NOT YET");
          failed += !ok;
        }
        std::printf("%d of the checks did not pass\n", failed);
        return failed ? 1 : 0;
      }
      for (const Entry& e : list_)
        if (e.name == cmd) return guarded(e, Args(argc, argv, 2)) ? 0 : 1;
    } catch (const std::invalid_argument& ex) {
      std::fprintf(stderr, "%s %s: %s\n", program_.c_str(), cmd.c_str(), ex.what());
      return 2;
    }
    std::fprintf(stderr, "%s: unknown command '%s'\n\n", program_.c_str(), cmd.c_str());
    usage(stderr);
    return 2;
  }

 private:
  struct Entry {
    std::string name, usage, help;
    Fn fn;
    bool in_all;
  };
  static bool guarded(const Entry& e, const Args& a) {
    try {
      return e.fn(a);
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::exception& ex) {
      std::printf("error: %s\n", ex.what());
      return false;
    }
  }
  std::string program_, about_;
  std::vector<Entry> list_;
};

}  // namespace synclab::lab
