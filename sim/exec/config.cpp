#include "sim/exec/config.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/exec/profile.h"

namespace synclab::sim {

const char* model_name(WarpModel m) { return m == WarpModel::Its ? "its" : "lockstep"; }

const char* sched_name(SchedPolicy s) {
  switch (s) {
    case SchedPolicy::RoundRobin: return "rr";
    case SchedPolicy::Random: return "random";
    case SchedPolicy::Pct: return "pct";
  }
  return "?";
}

bool parse_model(const std::string& s, WarpModel* out) {
  if (s == "its") { *out = WarpModel::Its; return true; }
  if (s == "lockstep") { *out = WarpModel::Lockstep; return true; }
  return false;
}

bool parse_sched(const std::string& s, SchedPolicy* out) {
  if (s == "rr") { *out = SchedPolicy::RoundRobin; return true; }
  if (s == "random") { *out = SchedPolicy::Random; return true; }
  if (s == "pct") { *out = SchedPolicy::Pct; return true; }
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
    if (s == "taken") c.lockstep_taken_first = true;
    else if (s == "fallthrough") c.lockstep_taken_first = false;
    else bad_env("SYNCLAB_LOCKSTEP_ORDER", v, "taken or fallthrough");
  }
  if (const char* v = std::getenv("SYNCLAB_DISPATCH"); v && *v) {
    std::string s = v;
    if (s == "order") c.dispatch = DispatchOrder::InOrder;
    else if (s == "reverse") c.dispatch = DispatchOrder::Reverse;
    else if (s == "random") c.dispatch = DispatchOrder::Random;
    else bad_env("SYNCLAB_DISPATCH", v, "order, reverse or random");
  }
  if (const char* v = std::getenv("SYNCLAB_CHECK"); v && *v) {
    std::string s = v;
    c.check_list = s;
    c.checks = !(s == "none" || s == "off" || s == "0");
    if (c.checks) {
      if (!check_list_problem(s).empty())
        bad_env("SYNCLAB_CHECK", v, "all, none, or a comma-separated list of race, sync, init, mem, leak");
    }
  }
  if (const char* v = std::getenv("SYNCLAB_TRACE"); v && *v) c.trace_path = v;
  if (const char* v = std::getenv("SYNCLAB_QUIET"); v && *v && std::string(v) != "0") c.quiet = true;
  return c;
}

bool Config::check_enabled(const char* name) const {
  if (!checks) return false;
  const std::string want = name;
  size_t start = 0;
  while (start <= check_list.size()) {
    size_t comma = check_list.find(',', start);
    if (comma == std::string::npos) comma = check_list.size();
    const std::string item = check_list.substr(start, comma - start);
    if (item == want || (item == "all" && want != "leak")) return true;
    start = comma + 1;
  }
  return false;
}

std::string check_list_problem(const std::string& list) {
  static const char* known[] = {"all", "race", "sync", "init", "mem", "leak", "hang"};
  size_t start = 0;
  int count = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    ++count;
    bool ok = false;
    for (const char* k : known) ok |= item == k;
    if (!ok) return "'" + item + "' is not a checker; use all, none, or a comma-separated list of race, sync, init, mem, leak";
  }
  if (count == 0) return "empty list; use all, none, or e.g. race,sync";
  return "";
}

}  // namespace synclab::sim
