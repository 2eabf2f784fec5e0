#include "sim/exec/config.h"

#include <synclab/trace_schedule.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/exec/profile.h"

namespace synclab::sim {

const char* model_name(WarpModel m) { return m == WarpModel::Its ? "its" : "lockstep"; }
const char* memory_name(MemoryModel m) { return m == MemoryModel::Sc ? "sc" : "relaxed"; }

const char* sched_name(SchedPolicy s) {
  switch (s) {
    case SchedPolicy::RoundRobin: return "rr";
    case SchedPolicy::Random: return "random";
    case SchedPolicy::Pct: return "pct";
  }
  return "?";
}

bool parse_memory(const std::string& s, MemoryModel* out) {
  if (s == "sc") {
    *out = MemoryModel::Sc;
    return true;
  }
  if (s == "relaxed") {
    *out = MemoryModel::Relaxed;
    return true;
  }
  return false;
}

bool parse_model(const std::string& s, WarpModel* out) {
  if (s == "its") {
    *out = WarpModel::Its;
    return true;
  }
  if (s == "lockstep") {
    *out = WarpModel::Lockstep;
    return true;
  }
  return false;
}

bool parse_sched(const std::string& s, SchedPolicy* out) {
  if (s == "rr") {
    *out = SchedPolicy::RoundRobin;
    return true;
  }
  if (s == "random") {
    *out = SchedPolicy::Random;
    return true;
  }
  if (s == "pct") {
    *out = SchedPolicy::Pct;
    return true;
  }
  return false;
}

namespace {

bool parse_u64(const char* s, uint64_t* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (*end != '\0' || s[0] == '-') return false;
  *out = v;
  return true;
}

}  // namespace

const std::vector<std::string>& Config::variables() {
  static const std::vector<std::string> names = {
      "SYNCLAB_MEMORY",   "SYNCLAB_MODEL",   "SYNCLAB_SCHED",          "SYNCLAB_SEED",        "SYNCLAB_PCT_DEPTH",
      "SYNCLAB_BUDGET",   "SYNCLAB_DEVICE",  "SYNCLAB_LOCKSTEP_ORDER", "SYNCLAB_DISPATCH",    "SYNCLAB_CHECK",
      "SYNCLAB_TRACE",    "SYNCLAB_QUIET",   "SYNCLAB_FAST",           "SYNCLAB_REPORTS",     "SYNCLAB_ERROR_EXITCODE",
      "SYNCLAB_VOLATILE", "SYNCLAB_STREAMS", "SYNCLAB_SCHEDULE",       "SYNCLAB_SCHED_AFTER", "SYNCLAB_MEMORY_CHECK",
      "SYNCLAB_PROFILE"};
  return names;
}

std::string Config::set(const std::string& name, const std::string& value) {
  const char* v = value.c_str();
  if (value.empty()) return "";  // an empty variable is an unset one
  if (name == "SYNCLAB_MEMORY") {
    if (!parse_memory(v, &memory)) return "sc or relaxed";
  } else if (name == "SYNCLAB_MEMORY_CHECK") {
    if (value == "1")
      memory_check = true;
    else if (value == "0")
      memory_check = false;
    else
      return "0 or 1 (1: check every relaxed launch's execution against the PTX model's axioms)";
  } else if (name == "SYNCLAB_MODEL") {
    if (!parse_model(v, &model)) return "its or lockstep";
  } else if (name == "SYNCLAB_SCHED") {
    if (value == "replay")
      replay = true;
    else if (!parse_sched(v, &sched))
      return "rr, random, pct or replay (with SYNCLAB_SCHEDULE=FILE)";
  } else if (name == "SYNCLAB_SCHEDULE") {
    schedule_path = value;
  } else if (name == "SYNCLAB_SCHED_AFTER") {
    if (!parse_sched(v, &sched_after)) return "rr, random or pct (the policy after the schedule's choices)";
    sched_after_set = true;
  } else if (name == "SYNCLAB_SEED") {
    if (!parse_u64(v, &seed)) return "a non-negative integer";
  } else if (name == "SYNCLAB_PCT_DEPTH") {
    uint64_t d = 0;
    if (!parse_u64(v, &d) || d < 1 || d > 64) return "an integer 1..64";
    pct_depth = static_cast<uint32_t>(d);
  } else if (name == "SYNCLAB_BUDGET") {
    uint64_t b = 0;
    if (!parse_u64(v, &b) || b == 0) return "a positive integer (warp-steps)";
    budget = b;
  } else if (name == "SYNCLAB_DEVICE") {
    if (!find_profile(value)) {
      std::string names;
      for (const auto& p : device_profiles()) names += (names.empty() ? "" : ", ") + p.name;
      return "one of: " + names;
    }
    device = value;
  } else if (name == "SYNCLAB_LOCKSTEP_ORDER") {
    if (value == "taken")
      lockstep_taken_first = true;
    else if (value == "fallthrough")
      lockstep_taken_first = false;
    else
      return "taken or fallthrough";
  } else if (name == "SYNCLAB_DISPATCH") {
    if (value == "order")
      dispatch = DispatchOrder::InOrder;
    else if (value == "reverse")
      dispatch = DispatchOrder::Reverse;
    else if (value == "random")
      dispatch = DispatchOrder::Random;
    else
      return "order, reverse or random";
  } else if (name == "SYNCLAB_STREAMS") {
    if (value == "order")
      streams = StreamOrder::InOrder;
    else if (value == "random")
      streams = StreamOrder::Random;
    else
      return "order (work of all streams runs in the order it was queued) or random (work of different "
             "streams runs in an order drawn from SYNCLAB_SEED, within each stream's order and its event waits)";
  } else if (name == "SYNCLAB_CHECK") {
    if (!check_list_problem(value).empty()) return check_list_syntax();
    check_list = value;
    checks = !check_list_is_none(value);
  } else if (name == "SYNCLAB_VOLATILE") {
    if (value == "data")
      volatile_data = true;
    else if (value == "strong")
      volatile_data = false;
    else
      return "strong (volatile accesses are strong, the PTX definition of a data race; the default) or data "
             "(volatile accesses are plain data for the race checker: volatile is not synchronization)";
  } else if (name == "SYNCLAB_TRACE") {
    trace_path = value;
  } else if (name == "SYNCLAB_PROFILE") {
    if (value == "0")
      profile.clear();
    else if (value == "1" || (value.size() > 5 && value.compare(value.size() - 5, 5, ".json") == 0) ||
             (value.size() > 6 && value.compare(value.size() - 6, 6, ".jsonl") == 0))
      profile = value;
    else
      return "1 (print each launch's performance counters on stderr), 0 (off) or a file name ending in .json or "
             ".jsonl (one JSON line per launch is appended to it)";
  } else if (name == "SYNCLAB_QUIET") {
    if (value != "0") quiet = true;
  } else if (name == "SYNCLAB_FAST") {
    if (value == "0")
      fast = false;
    else if (value != "1")
      return "1 (the interpreter's fast paths, the default) or 0 (the general path only)";
  } else if (name == "SYNCLAB_REPORTS") {
    if (value == "all")
      reports_all = true;
    else if (value != "once")
      return "once (each report once per launch and line pair) or all";
  } else if (name == "SYNCLAB_ERROR_EXITCODE") {
    // Exit statuses are 8 bits; decimal only, so that "010" is not silently 8.
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 255 || !std::isdigit(static_cast<unsigned char>(v[0])))
      return "an exit status 0..255 for a program whose kernels produced error reports (0: keep the "
             "program's own; default 1)";
    error_exitcode = static_cast<int>(n);
  } else {
    std::string names;
    for (const std::string& n : variables()) names += (names.empty() ? "" : ", ") + n;
    return "one of the variables " + names;
  }
  return "";
}

Config Config::from_environment(const ScheduleLoader& load_schedule) {
  Config c;
  for (const std::string& name : variables()) {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) continue;
    const std::string expected = c.set(name, v);
    if (!expected.empty()) {
      std::fprintf(stderr, "synclab: %s=%s is not valid; expected %s\n", name.c_str(), v, expected.c_str());
      std::exit(2);
    }
  }
  // SYNCLAB_SCHEDULE alone replays too (a lab harness reads SYNCLAB_SCHED itself and knows only
  // rr, random and pct): SYNCLAB_SCHED is then the policy after the file, unless it has a `then`.
  if (!c.schedule_path.empty()) c.replay = true;
  if (c.replay) {
    if (c.schedule_path.empty()) {
      std::fprintf(stderr,
                   "synclab: SYNCLAB_SCHED=replay needs SYNCLAB_SCHEDULE=FILE, the schedule to follow "
                   "(docs/simulator.md, \"Replaying a schedule\")\n");
      std::exit(2);
    }
    c.schedule = load_schedule(c.schedule_path);  // exits with 3 on a bad file
    // The policy after the file: SYNCLAB_SCHED_AFTER, else the file's `then` (replay_after, which
    // a program's own set_scheduler does not replace), else the scheduler the program sets, else
    // SYNCLAB_SCHED when it names one, else rr (Config's default).
    if (c.sched_after_set)
      c.replay_after = c.sched_after;
    else if (SchedPolicy p; !c.schedule->then.empty() && parse_sched(c.schedule->then, &p))
      c.replay_after = p;
    if (c.replay_after) c.sched = *c.replay_after;  // untraced launches too, until a program sets its own
  }
  return c;
}

const std::vector<CheckerInfo>& checkers() {
  // "hang" and "mem" are not here on purpose: deadlock/hang detection and bounds checking are
  // always on (they decide how a launch ends), so a switch for them would do nothing.
  // Never destroyed: the leak summary asks for it from an exit handler.
  static const auto* list = new std::vector<CheckerInfo>{
      {"race", true, "data races in shared and global memory"},
      {"sync", true, "barrier and warp-mask mistakes"},
      {"init", true, "reads of uninitialized memory"},
      {"leak", false, "device allocations never freed, listed at exit (not in all)"},
  };
  return *list;
}

std::string checker_names() {
  std::string out;
  for (const CheckerInfo& c : checkers()) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string check_list_syntax() { return "all, none, or a comma-separated list of " + checker_names(); }

namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    items.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

const CheckerInfo* find_checker(const std::string& name) {
  for (const CheckerInfo& c : checkers())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

bool check_list_is_none(const std::string& list) { return list == "none"; }

std::string check_list_problem(const std::string& list) {
  if (check_list_is_none(list)) return "";
  int count = 0;
  for (const std::string& item : split_list(list)) {
    if (item.empty()) continue;
    ++count;
    if (item == "none")
      return "'none' cannot be combined with checker names; use none alone, or " + check_list_syntax();
    if (item != "all" && !find_checker(item)) return "'" + item + "' is not a checker; use " + check_list_syntax();
  }
  if (count == 0) return "empty list; use " + check_list_syntax();
  return "";
}

bool Config::check_enabled(const char* name) const {
  if (!checks) return false;
  const CheckerInfo* c = find_checker(name);
  if (!c) return false;
  for (const std::string& item : split_list(check_list))
    if (item == c->name || (item == "all" && c->in_all)) return true;
  return false;
}

}  // namespace synclab::sim
