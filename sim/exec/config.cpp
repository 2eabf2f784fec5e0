#include "sim/exec/config.h"

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

[[noreturn]] void bad_env(const char* var, const char* value, const char* expected) {
  std::fprintf(stderr, "synclab: %s=%s is not valid; expected %s\n", var, value, expected);
  std::exit(2);
}

bool parse_u64(const char* s, uint64_t* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 0);
  if (*end != '\0' || s[0] == '-') return false;
  *out = v;
  return true;
}

}  // namespace

Config Config::from_environment() {
  Config c;
  if (const char* v = std::getenv("SYNCLAB_MEMORY"); v && *v) {
    if (!parse_memory(v, &c.memory)) bad_env("SYNCLAB_MEMORY", v, "sc or relaxed");
  }
  if (const char* v = std::getenv("SYNCLAB_MODEL"); v && *v) {
    if (!parse_model(v, &c.model)) bad_env("SYNCLAB_MODEL", v, "its or lockstep");
  }
  if (const char* v = std::getenv("SYNCLAB_SCHED"); v && *v) {
    if (!parse_sched(v, &c.sched)) bad_env("SYNCLAB_SCHED", v, "rr, random or pct");
  }
  if (const char* v = std::getenv("SYNCLAB_SEED"); v && *v) {
    if (!parse_u64(v, &c.seed)) bad_env("SYNCLAB_SEED", v, "a non-negative integer");
  }
  if (const char* v = std::getenv("SYNCLAB_PCT_DEPTH"); v && *v) {
    uint64_t d = 0;
    if (!parse_u64(v, &d) || d < 1 || d > 64) bad_env("SYNCLAB_PCT_DEPTH", v, "an integer 1..64");
    c.pct_depth = static_cast<uint32_t>(d);
  }
  if (const char* v = std::getenv("SYNCLAB_BUDGET"); v && *v) {
    if (!parse_u64(v, &c.budget) || c.budget == 0) bad_env("SYNCLAB_BUDGET", v, "a positive integer (warp-steps)");
  }
  if (const char* v = std::getenv("SYNCLAB_DEVICE"); v && *v) {
    if (!find_profile(v)) {
      std::string names;
      for (const auto& p : device_profiles()) names += (names.empty() ? "" : ", ") + p.name;
      bad_env("SYNCLAB_DEVICE", v, ("one of: " + names).c_str());
    }
    c.device = v;
  }
  if (const char* v = std::getenv("SYNCLAB_LOCKSTEP_ORDER"); v && *v) {
    std::string s = v;
    if (s == "taken")
      c.lockstep_taken_first = true;
    else if (s == "fallthrough")
      c.lockstep_taken_first = false;
    else
      bad_env("SYNCLAB_LOCKSTEP_ORDER", v, "taken or fallthrough");
  }
  if (const char* v = std::getenv("SYNCLAB_DISPATCH"); v && *v) {
    std::string s = v;
    if (s == "order")
      c.dispatch = DispatchOrder::InOrder;
    else if (s == "reverse")
      c.dispatch = DispatchOrder::Reverse;
    else if (s == "random")
      c.dispatch = DispatchOrder::Random;
    else
      bad_env("SYNCLAB_DISPATCH", v, "order, reverse or random");
  }
  if (const char* v = std::getenv("SYNCLAB_CHECK"); v && *v) {
    if (!check_list_problem(v).empty()) bad_env("SYNCLAB_CHECK", v, check_list_syntax().c_str());
    c.check_list = v;
    c.checks = !check_list_is_none(v);
  }
  if (const char* v = std::getenv("SYNCLAB_TRACE"); v && *v) c.trace_path = v;
  if (const char* v = std::getenv("SYNCLAB_QUIET"); v && *v && std::string(v) != "0") c.quiet = true;
  if (const char* v = std::getenv("SYNCLAB_FAST"); v && *v) {
    const std::string s = v;
    if (s == "0")
      c.fast = false;
    else if (s != "1")
      bad_env("SYNCLAB_FAST", v, "1 (the interpreter's fast paths, the default) or 0 (the general path only)");
  }
  if (const char* v = std::getenv("SYNCLAB_REPORTS"); v && *v) {
    const std::string s = v;
    if (s == "all")
      c.reports_all = true;
    else if (s != "once")
      bad_env("SYNCLAB_REPORTS", v, "once (each report once per launch and line pair) or all");
  }
  if (const char* v = std::getenv("SYNCLAB_ERROR_EXITCODE"); v && *v) {
    // Exit statuses are 8 bits; decimal only, so that "010" is not silently 8.
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 255 || !std::isdigit(static_cast<unsigned char>(v[0])))
      bad_env("SYNCLAB_ERROR_EXITCODE", v,
              "an exit status 0..255 for a program whose kernels produced error reports (0: keep the "
              "program's own; default 1)");
    c.error_exitcode = static_cast<int>(n);
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
