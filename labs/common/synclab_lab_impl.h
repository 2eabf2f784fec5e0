// The definitions of synclab_lab.h's functions. synclab_lab.h includes this file (its functions are
// then inline) unless SYNCLAB_LAB_SEPARATE is defined; then synclab_lab.cpp compiles them once.
// In the header's order:
//   Schedule, replay_command, schedules, describe, apply   schedules to explore and their replay lines
//   last_reports ... print_reports, RunTally                reports and a command's tally
//   TraceChoice                                             which run --trace records (--show)
//   stuck_word, tree_path                                   how a launch got stuck; file names
//   student_id, print_graded_cases, student_draw            per-student variants
//   throw_cuda_failure                                      errors that throw
//   counting_schedule, Args, exploration_from, Commands     sub-commands and their options
//   answer_rows, answer_in                                  a student's table of short answers
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "synclab_lab.h"

#ifndef SYNCLAB_LAB_INLINE
#define SYNCLAB_LAB_INLINE inline
#endif

namespace synclab::lab {

SYNCLAB_LAB_INLINE std::string Schedule::options() const {
  if (on_gpu()) return "";
  std::string s = "--model " + model + " --sched " + policy;
  if (policy != "rr") s += " --seed " + std::to_string(seed);
  if (policy == "pct" && pct_depth != 3) s += " --depth " + std::to_string(pct_depth);
  if (memory != "sc") s += " --memory " + memory;
  return s;
}

SYNCLAB_LAB_INLINE std::string Schedule::replay() const {
  if (on_gpu()) return "GPU run " + std::to_string(seed) + " (a GPU run cannot be replayed)";
  return options();
}

// A harness program's own command (argv[0]), set by Commands::run; empty in other programs.
SYNCLAB_LAB_INLINE std::string& harness_self() {
  static std::string self;
  return self;
}

SYNCLAB_LAB_INLINE std::string program_command(const std::string& program) {
  const char* set = std::getenv("SYNCLAB_REPLAY_PROGRAM");
  if (set && *set) return set;
  if (!harness_self().empty()) return harness_self();
  return "build/bin/sim/" + program;
}

SYNCLAB_LAB_INLINE std::string shape_args(int blocks, int threads) {
  return "--blocks " + std::to_string(blocks) + " --threads " + std::to_string(threads);
}

SYNCLAB_LAB_INLINE std::string replay_command(const std::string& program, const std::string& args, const Schedule& s) {
  if (s.on_gpu()) {
    // This program runs on the GPU: the simulator's build of the harness explores the run (the
    // grader's SYNCLAB_REPLAY_PROGRAM is one: ./synclab run builds it from the graded files).
    const char* set = std::getenv("SYNCLAB_REPLAY_PROGRAM");
    const std::string sim = set && *set ? std::string(set) : "build/bin/sim/" + program;
    return "GPU run " + std::to_string(s.seed) + " (a GPU run cannot be replayed; explore it on the simulator: " +
           sim + " " + args + ")";
  }
  return program_command(program) + " " + args + " " + s.options();
}

SYNCLAB_LAB_INLINE std::vector<Schedule> schedules(const Exploration& e) {
  std::vector<Schedule> out;
  if (!on_simulator()) {
    for (int i = 1; i <= e.gpu_runs; ++i) out.push_back({"gpu", "gpu", uint64_t(i), 0});
    return out;
  }
  auto wanted = [&](const char* p) { return e.only_policy.empty() || e.only_policy == p; };
  for (const std::string& mem : e.memories)
    for (const std::string& m : e.models) {
      if (e.only_policy == "rr" || (e.only_policy.empty() && e.rr)) out.push_back({m, "rr", 1, e.pct_depth, mem});
      for (const char* p : {"pct", "random"}) {
        if (!wanted(p)) continue;
        if (e.only_seed) {
          out.push_back({m, p, e.only_seed, e.pct_depth, mem});
          continue;
        }
        const int n = std::string(p) == "pct" ? e.pct_seeds : e.random_seeds;
        for (int i = 1; i <= n; ++i) out.push_back({m, p, uint64_t(i), e.pct_depth, mem});
      }
    }
  return out;
}

SYNCLAB_LAB_INLINE std::string describe(const std::vector<Schedule>& ss) {
  if (ss.empty()) return "no schedule";
  if (ss[0].on_gpu()) return std::to_string(ss.size()) + (ss.size() == 1 ? " run" : " runs") + " on the GPU";
  std::vector<std::string> models, memories;
  std::map<std::string, std::vector<uint64_t>> seeds;  // policy -> seeds (in order, per model)
  for (const Schedule& s : ss) {
    if (std::find(models.begin(), models.end(), s.model) == models.end()) models.push_back(s.model);
    if (std::find(memories.begin(), memories.end(), s.memory) == memories.end()) memories.push_back(s.memory);
    std::vector<uint64_t>& v = seeds[s.policy];
    if (std::find(v.begin(), v.end(), s.seed) == v.end()) v.push_back(s.seed);
  }
  std::string out = std::to_string(ss.size()) + (ss.size() == 1 ? " schedule (" : " schedules (");
  for (const char* p : {"rr", "pct", "random"}) {
    auto it = seeds.find(p);
    if (it == seeds.end()) continue;
    out += p;
    if (std::string(p) != "rr") {
      std::vector<uint64_t> v = it->second;
      std::sort(v.begin(), v.end());
      const bool range = v.back() - v.front() + 1 == v.size();
      if (v.size() == 1) out += " seed " + std::to_string(v[0]);
      else if (range) out += " seeds " + std::to_string(v.front()) + "-" + std::to_string(v.back());
      else {
        out += " seeds";
        for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : " ") + std::to_string(v[i]);
      }
    }
    out += "; ";
  }
  out += models.size() == 1 ? "model " : "models ";
  for (size_t i = 0; i < models.size(); ++i) out += (i ? " and " : "") + models[i];
  if (memories.size() > 1 || memories[0] != "sc") {
    out += memories.size() == 1 ? "; memory " : "; memory models ";
    for (size_t i = 0; i < memories.size(); ++i) out += (i ? " and " : "") + memories[i];
  }
  return out + ")";
}

SYNCLAB_LAB_INLINE void apply(const Schedule& s, const char* checks) {
  if (s.on_gpu() || !on_simulator()) return;
  synclab::sim::set_model(s.model.c_str());
  synclab::sim::set_memory(s.memory.c_str());
  synclab::sim::set_scheduler(s.policy.c_str(), s.seed, s.pct_depth);
  synclab::sim::set_checks(checks);
  synclab::sim::clear_reports();
}

SYNCLAB_LAB_INLINE std::vector<Report> last_reports() {
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
    // An uninitialized read or a barrier mistake inside a provided header's function (a lab's *.cuh)
    // that the compiler inlined into a student's .cu: the student's line is what the message names
    // (the call that every thread must make, say). A race there keeps the header's line: it may be
    // the point (lab 02's critical section, provided, shows that the lock let two threads in).
    if ((r.kind == "init" || r.kind == "sync") &&
        (r.where.find(".cuh:") != std::string::npos || r.where.find(".h:") != std::string::npos)) {
      const size_t in = r.text.find("inlined into ", at == std::string::npos ? 0 : at);
      const size_t nl = r.text.find('\n', at == std::string::npos ? 0 : at);
      if (in != std::string::npos && in < nl) {
        const size_t begin = in + 13, end = r.text.find_first_of(" ,\n", begin);
        const std::string caller = r.text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        const size_t colon = caller.find_last_of(':'), slash = caller.find_last_of('/');
        const std::string file = caller.substr(slash == std::string::npos ? 0 : slash + 1,
                                               colon == std::string::npos ? std::string::npos : colon - slash - 1);
        if (colon != std::string::npos && file.size() > 3 && file.compare(file.size() - 3, 3, ".cu") == 0 &&
            file != "harness.cu" && file != "main.cu")
          r.where = caller;
      }
    }
    out.push_back(r);
  }
  // A hang in a loop that reads no memory comes first: whatever else the launch reported (a race
  // with the load the compiler hoisted out of that loop, say), nothing ends the loop until it
  // reads memory again. So does a hang at a grid barrier that some threads stopped calling: the
  // races between threads that passed different barriers follow from it.
  std::stable_partition(out.begin(), out.end(), [](const Report& r) {
    return r.kind == "hang" && (r.title.find("reads no memory") != std::string::npos ||
                                r.title.find("at a grid barrier") != std::string::npos);
  });
  return out;
}

SYNCLAB_LAB_INLINE std::vector<Report> of_kind(const std::vector<Report>& rs, const std::string& kind) {
  std::vector<Report> out;
  for (const Report& r : rs)
    if (kind.empty() || r.kind == kind) out.push_back(r);
  return out;
}

SYNCLAB_LAB_INLINE std::string failed_runs(int bad, int reported) {
  const int wrong = bad - reported;
  auto runs = [](int n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); };
  if (!reported) return "wrong in " + runs(wrong);
  if (!wrong) return "reported in " + runs(reported) + (reported == 1 ? " (its result right)" : " (every result right)");
  return "wrong in " + runs(wrong) + ", reported in " + std::to_string(reported) + " more (" +
         (reported == 1 ? "its result right)" : "their results right)");
}

SYNCLAB_LAB_INLINE std::string brief(const Report& r) {
  std::string s = std::string(r.error ? "" : "warning: ") + r.kind;
  if (!r.where.empty()) s += " at " + r.short_where();
  if (!r.title.empty()) s += " (" + r.title + ")";
  return s;
}

SYNCLAB_LAB_INLINE void print_reports(const std::vector<Report>& rs, size_t limit) {
  std::set<std::string> seen;
  for (const Report& r : rs) {
    std::string b = brief(r);
    if (!seen.insert(b).second) continue;
    if (seen.size() > limit) {
      std::printf("    ...\n");
      break;
    }
    std::printf("    %s\n", b.c_str());
  }
}

SYNCLAB_LAB_INLINE void announce_trace(const Schedule& s, const std::string& trace) {
  std::printf("recording %s with %s\n", trace.c_str(), s.replay().c_str());
}

SYNCLAB_LAB_INLINE std::string RunTally::add(std::string what, const std::vector<Report>& reports,
                                             const std::string& replay) {
  reports_.insert(reports_.end(), reports.begin(), reports.end());
  if (what.empty() && !reports.empty()) what = brief(reports.front()), ++reported_;
  if (!what.empty() && !bad_++) first_ = what + ", in:\n    " + replay;
  return what;
}

SYNCLAB_LAB_INLINE void RunTally::print(const std::string& all_right, const std::string& hint) const {
  if (bad_)
    std::printf("  %s; first: %s\n", failed_runs(bad_, reported_).c_str(), first_.c_str());
  else
    std::printf("  %s\n", all_right.c_str());
  if (bad_ && !hint.empty()) std::printf("  (%s)\n", hint.c_str());
  if (!reports_.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports_);
  }
}

// What the running command chose to record (TraceChoice): its --show word, and whether a run was
// recorded, for the line Commands::run prints after the command.
struct TraceState {
  bool chosen = false;   // a TraceChoice was made with --trace given
  bool recorded = false;
  std::string word;
};
SYNCLAB_LAB_INLINE TraceState& trace_state() {
  static TraceState state;
  return state;
}

SYNCLAB_LAB_INLINE TraceChoice::TraceChoice(const Args& a, const std::string& fallback,
                                            const std::vector<std::string>& own)
    : word_(a.get("show", fallback)), file_(a.get("trace", "")) {
  std::vector<std::string> words{"any", "bad", "good"};
  words.insert(words.end(), own.begin(), own.end());
  bool known = std::find(words.begin(), words.end(), word_) != words.end();
  const bool number = !word_.empty() && std::all_of(word_.begin(), word_.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (number && std::find(own.begin(), own.end(), "N") != own.end()) known = true;
  if (!known) {
    std::string list;
    for (size_t i = 0; i < words.size(); ++i)
      list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + (words[i] == "N" ? std::string("a number") : words[i]);
    throw std::invalid_argument("--show takes " + list + " (which run --trace records), not '" + word_ + "'");
  }
  if (!file_.empty()) {
    trace_state().chosen = true;
    trace_state().word = word_;
  }
}

SYNCLAB_LAB_INLINE bool TraceChoice::wants(bool failed, const std::string& kind) const {
  if (file_.empty() || trace_state().recorded) return false;
  if (word_ == "any") return true;
  if (word_ == "bad") return failed;
  if (word_ == "good") return !failed;
  return kind == word_;
}

SYNCLAB_LAB_INLINE void TraceChoice::recording(const Schedule& s) const {
  announce_trace(s, file_);
  trace_state().recorded = true;
}

SYNCLAB_LAB_INLINE std::string stuck_word(const std::vector<Report>& rs) {
  for (const Report& r : rs) {
    if (r.kind == "deadlock") return "deadlocked";
    if (r.kind == "hang" && r.title.find("at a grid barrier") != std::string::npos) return "hung at a grid barrier";
    if (r.kind == "hang") return "hung (spinning)";
    if (r.kind == "budget") return "ran out of its step budget";
  }
  return "";
}

SYNCLAB_LAB_INLINE const char* tree_path(const char* file) {
  const char* from = nullptr;
  for (const char* p = std::strstr(file, "/labs/"); p; p = std::strstr(p + 1, "/labs/")) from = p + 1;
  return from ? from : file;
}

SYNCLAB_LAB_INLINE std::string student_id() {
  const char* env = std::getenv("SYNCLAB_STUDENT");
  std::string id = env ? env : "";
  const size_t b = id.find_first_not_of(" \t\r\n"), e = id.find_last_not_of(" \t\r\n");
  id = b == std::string::npos ? "" : id.substr(b, e - b + 1);
  for (char& c : id) c = char(std::tolower(static_cast<unsigned char>(c)));
  return id;
}

SYNCLAB_LAB_INLINE void print_graded_cases(const std::string& graded, const std::string& own) {
  const std::string id = student_id();
  if (id.empty())
    std::printf("%s (no student id: set SYNCLAB_STUDENT to the id your course grades with to see your own %s)\n",
                graded.c_str(), own.c_str());
  else
    std::printf("%s for student id '%s'\n", graded.c_str(), id.c_str());
}

SYNCLAB_LAB_INLINE std::vector<size_t> student_draw(const std::string& id, const std::string& salt, size_t n, size_t k) {
  // FNV-1a of "id\0salt" seeds splitmix64; a partial Fisher-Yates shuffle takes the first k.
  uint64_t h = 0xcbf29ce484222325ull;
  for (const std::string* part : {&id, &salt}) {
    for (unsigned char c : *part) h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0) * 0x100000001b3ull;
  }
  auto next = [&h] {
    uint64_t z = (h += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  k = std::min(k, n);
  for (size_t i = 0; i < k; ++i) std::swap(all[i], all[i + size_t(next() % (n - i))]);
  all.resize(k);
  return all;
}

SYNCLAB_LAB_INLINE void throw_cuda_failure(const char* file, int line, const char* call, const char* cuda_message) {
  std::ostringstream msg;
  msg << tree_path(file) << ":" << line << ": " << call << " failed: " << cuda_message;
  for (const Report& r : last_reports()) msg << "\n  simulator: " << brief(r);
  throw CudaFailure(msg.str());
}

SYNCLAB_LAB_INLINE Schedule counting_schedule() {
  Schedule s;
  s.model = "its";
  s.policy = "rr";
  s.memory = "sc";
  return s;
}

SYNCLAB_LAB_INLINE const std::vector<std::string>& exploration_options() {
  static const std::vector<std::string> names{"seeds", "model", "models", "sched",  "seed",
                                              "depth", "runs",  "memory", "profile"};
  return names;
}

SYNCLAB_LAB_INLINE Args::Args(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "' (options start with --)");
    a = a.substr(2);
    if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) values_[a] = argv[++i];
    else values_[a] = "";
  }
}

SYNCLAB_LAB_INLINE void Args::only(const std::vector<std::string>& valid) const {
  for (const auto& kv : values_) {
    if (std::find(valid.begin(), valid.end(), kv.first) != valid.end()) continue;
    std::string list;
    for (const std::string& v : valid) list += (list.empty() ? "--" : ", --") + v;
    throw std::invalid_argument("unknown option '--" + kv.first + "'; valid options: " +
                                (list.empty() ? std::string("none") : list));
  }
}

SYNCLAB_LAB_INLINE std::string Args::get(const std::string& k, const std::string& fallback) const {
  auto it = values_.find(k);
  return it == values_.end() ? fallback : it->second;
}

SYNCLAB_LAB_INLINE long long Args::num(const std::string& k, long long fallback) const {
  auto it = values_.find(k);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end) throw std::invalid_argument("--" + k + " needs a whole number, not '" + it->second + "'");
  return v;
}

SYNCLAB_LAB_INLINE Exploration exploration_from(const Args& a, int default_seeds, int default_gpu_runs,
                                                const std::vector<std::string>& default_memories) {
  Exploration e;
  e.memories = default_memories;
  auto setting = [&](const char* option, const char* env, std::string& value) {
    if (a.has(option)) {
      value = a.get(option, "");
      if (value.empty()) throw std::invalid_argument(std::string("--") + option + " needs a value");
      return true;
    }
    const char* v = std::getenv(env);
    if (!v || !*v) return false;
    value = v;
    static std::map<std::string, bool> noted;
    if (!noted[env]) {
      std::printf("(%s=%s from the environment: as --%s %s)\n", env, v, option, v);
      noted[env] = true;
    }
    return true;
  };
  auto number = [](const std::string& option, const std::string& v) {
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end || n < 0) throw std::invalid_argument(option + " needs a whole number >= 0, not '" + v + "'");
    return n;
  };
  e.pct_seeds = e.random_seeds = int(a.num("seeds", default_seeds));
  if (e.pct_seeds < 0) throw std::invalid_argument("--seeds needs a number >= 0");
  e.gpu_runs = int(a.num("runs", default_gpu_runs));
  std::string v;
  if (a.has("model") && a.has("models")) throw std::invalid_argument("give --model or --models, not both");
  if (setting(a.has("models") ? "models" : "model", "SYNCLAB_MODEL", v)) {
    e.models.clear();
    std::stringstream list(v);
    for (std::string m; std::getline(list, m, ',');) {
      if (m != "its" && m != "lockstep")
        throw std::invalid_argument("--model takes its, lockstep or its,lockstep, not '" + v + "'");
      if (std::find(e.models.begin(), e.models.end(), m) == e.models.end()) e.models.push_back(m);
    }
    if (e.models.empty()) throw std::invalid_argument("--model takes its, lockstep or its,lockstep");
  }
  if (setting("sched", "SYNCLAB_SCHED", v)) {
    if (v != "rr" && v != "pct" && v != "random")
      throw std::invalid_argument("--sched takes rr, pct or random, not '" + v + "'");
    e.only_policy = v;
  }
  // A seed only picks a pct or random run (SYNCLAB_SEED without one of those is not used).
  const bool seeded = e.only_policy == "pct" || e.only_policy == "random";
  if ((a.has("seed") || seeded) && setting("seed", "SYNCLAB_SEED", v)) {
    if (!seeded) throw std::invalid_argument("--seed needs --sched pct or --sched random");
    e.only_seed = uint64_t(number("--seed", v));
    if (e.only_seed == 0) throw std::invalid_argument("--seed needs a seed >= 1");
  }
  if (setting("memory", "SYNCLAB_MEMORY", v)) {
    e.memories.clear();
    std::stringstream list(v);
    for (std::string m; std::getline(list, m, ',');) {
      if (m != "sc" && m != "relaxed")
        throw std::invalid_argument("--memory takes sc, relaxed or sc,relaxed, not '" + v + "'");
      if (std::find(e.memories.begin(), e.memories.end(), m) == e.memories.end()) e.memories.push_back(m);
    }
    if (e.memories.empty()) throw std::invalid_argument("--memory takes sc, relaxed or sc,relaxed");
  }
  if (setting("depth", "SYNCLAB_PCT_DEPTH", v)) {
    e.pct_depth = unsigned(number("--depth", v));
    if (e.pct_depth < 1) throw std::invalid_argument("--depth needs a depth >= 1");
  }
  if (a.has("profile")) {
    // One run, as a GPU would issue it (rr never splits a warp's access), with its counters printed.
    if (!a.get("profile", "").empty()) throw std::invalid_argument("--profile takes no value");
    if (!on_simulator()) {
      std::printf("--profile: the simulator's counters; on a GPU, run the program under Nsight Compute (ncu)\n");
    } else {
      const Schedule one = counting_schedule();
      e.models = {one.model};
      e.only_policy = one.policy;
      e.only_seed = 0;
      e.memories = {one.memory};
      synclab::sim::set_profile("1");
    }
  }
  return e;
}

SYNCLAB_LAB_INLINE void Commands::add(const std::string& name, const std::string& usage, const std::string& help,
                                      std::vector<std::string> options, Fn fn, bool explores, bool in_all) {
  if (explores) options.insert(options.end(), exploration_options().begin(), exploration_options().end());
  list_.push_back({name, usage, help, std::move(options), std::move(fn), in_all});
}

SYNCLAB_LAB_INLINE void Commands::usage(FILE* f) const {
  std::fprintf(f, "%s\n\nusage: %s COMMAND [options]\n\ncommands:\n", about_.c_str(), program_.c_str());
  for (const Entry& e : list_) {
    std::fprintf(f, "  %s %s\n", e.name.c_str(), e.usage.c_str());
    std::fprintf(f, "      %s\n", e.help.c_str());
  }
  std::fprintf(f, "  all [exploration options]\n      run every task's check, in order\n  help\n      this text\n");
  std::fprintf(f,
               "\nexploration options (every command above; by default a command explores the same schedules\n"
               "as the task's graded tests):\n"
               "  --seeds N                 pct and random seeds 1..N (under each warp model, after one rr run)\n"
               "  --model its|lockstep      one warp model (--models is the same; its,lockstep: both, the default)\n"
               "  --sched rr|pct|random     only that scheduler\n"
               "  --seed S                  with --sched pct or random: only seed S\n"
               "  --depth D                 pct's depth (default 3)\n"
               "  --memory sc|relaxed       the memory model (sc,relaxed: both; default: the task's graded\n"
               "                            tests' own, which add relaxed where data is published through a flag)\n"
               "  --runs N                  on a GPU: repeat the run N times (a GPU cannot explore)\n"
               "  --profile                 one run (its, rr, sc) with each launch's performance counters:\n"
               "                            sectors and bank conflicts per request, atomics (docs/profile.md)\n"
               "A failing check prints the command that replays its run, e.g.\n"
               "  %s COMMAND ... --model its --sched pct --seed 12\n"
               "SYNCLAB_MODEL, SYNCLAB_SCHED, SYNCLAB_SEED, SYNCLAB_PCT_DEPTH and SYNCLAB_MEMORY, when set, act\n"
               "as --model, --sched, --seed, --depth and --memory (the options win); docs/simulator.md and\n"
               "docs/memory-model.md describe the settings.\n",
               program_command(program_).c_str());
}

SYNCLAB_LAB_INLINE int Commands::run(int argc, char** argv) const {
  // Replay lines name this program as it was started (build/bin/sim/lab05, or the copy a grading
  // kept): the code that ran, whichever copy of the lab it was built from.
  if (argc > 0 && argv[0] && *argv[0]) harness_self() = argv[0];
  if (argc < 2) { usage(stderr); return 2; }
  std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") { usage(stdout); return 0; }
  try {
    if (cmd == "all") {
      Args options(argc, argv, 2);
      options.only(exploration_options());
      int failed = 0;
      for (const Entry& e : list_) {
        if (!e.in_all) continue;
        std::printf("==== %s %s\n", program_.c_str(), e.name.c_str());
        bool ok = guarded(e, options);
        std::printf("==== %s: %s\n\n", e.name.c_str(), ok ? "OK" : "NOT YET");
        failed += !ok;
      }
      if (failed)
        std::printf("%d of the checks did not pass\n", failed);
      else
        std::printf("every check passed\n");
      return failed ? 1 : 0;
    }
    for (const Entry& e : list_)
      if (e.name == cmd) {
        Args options(argc, argv, 2);
        options.only(e.options);
        return guarded(e, options) ? 0 : 1;
      }
  } catch (const std::invalid_argument& ex) {
    std::fprintf(stderr, "%s %s: %s\n(%s help: the commands and their options)\n", program_.c_str(), cmd.c_str(),
                 ex.what(), program_.c_str());
    return 2;
  }
  std::fprintf(stderr, "%s: unknown command '%s'\n\n", program_.c_str(), cmd.c_str());
  usage(stderr);
  return 2;
}

SYNCLAB_LAB_INLINE bool Commands::guarded(const Entry& e, const Args& a) {
  try {
    const bool ok = e.fn(a);
    TraceState& t = trace_state();
    if (t.chosen && !t.recorded)
      std::printf("no explored run matched --show %s, so no trace was recorded (--show any records the first run)\n",
                  t.word.c_str());
    return ok;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& ex) {
    std::printf("error: %s\n", ex.what());
    return false;
  }
}

SYNCLAB_LAB_INLINE std::vector<std::vector<std::string>> answer_rows(const char* text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text ? text : "");
  for (std::string line; std::getline(in, line);) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) {
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      w.push_back(s);
    }
    if (!w.empty()) rows.push_back(std::move(w));
  }
  return rows;
}

SYNCLAB_LAB_INLINE std::string answer_in(const char* text, const std::string& question) {
  for (const std::vector<std::string>& w : answer_rows(text))
    if (w[0] == question && w.size() >= 2) return w[1];
  return "";
}

}  // namespace synclab::lab
