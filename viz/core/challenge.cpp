#include "viz/core/challenge.h"

#include <synclab/trace_reader.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace synclab::viz {

namespace tr = synclab::trace;

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

bool parse_int(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}

// "NAME" or "NAME[i]".
bool parse_region(const std::string& text, std::string* name, uint64_t* element) {
  std::string s = trim(text);
  *element = 0;
  if (!s.empty() && s.back() == ']') {
    const size_t open = s.rfind('[');
    if (open == std::string::npos) return false;
    int64_t i = 0;
    if (!parse_int(s.substr(open + 1, s.size() - open - 2), &i) || i < 0) return false;
    *element = static_cast<uint64_t>(i);
    s = trim(s.substr(0, open));
  }
  *name = s;
  return !s.empty();
}

constexpr const char* kSyntax =
    "a check is one of: final REGION == V, final REGION != V, max REGION >= V, stuck, first-set REGION by warp W";

// The value of a RegionUpdate for comparisons: signed at the region's element width.
int64_t as_signed(uint64_t v, uint64_t elem_bytes) {
  switch (elem_bytes) {
    case 1: return static_cast<int8_t>(v);
    case 2: return static_cast<int16_t>(v);
    case 4: return static_cast<int32_t>(v);
    default: return static_cast<int64_t>(v);
  }
}

}  // namespace

bool parse_challenge_check(const std::string& text, ChallengeCheck* out, std::string* error) {
  *out = ChallengeCheck{};
  const std::string s = trim(text);
  out->text = s;
  if (s == "stuck") {
    out->kind = ChallengeCheck::Kind::Stuck;
    return true;
  }
  auto split_op = [&](const std::string& rest, const char* op, std::string* lhs, int64_t* v) {
    const size_t at = rest.rfind(op);
    if (at == std::string::npos) return false;
    return parse_int(trim(rest.substr(at + std::string(op).size())), v) && (*lhs = rest.substr(0, at), true);
  };
  std::string lhs;
  if (s.rfind("final ", 0) == 0) {
    const std::string rest = s.substr(6);
    if (split_op(rest, "==", &lhs, &out->value))
      out->kind = ChallengeCheck::Kind::FinalEq;
    else if (split_op(rest, "!=", &lhs, &out->value))
      out->kind = ChallengeCheck::Kind::FinalNe;
    else {
      *error = "'" + s + "': final needs == V or != V with a whole number V; " + kSyntax;
      return false;
    }
  } else if (s.rfind("max ", 0) == 0) {
    if (!split_op(s.substr(4), ">=", &lhs, &out->value)) {
      *error = "'" + s + "': max needs >= V with a whole number V; " + kSyntax;
      return false;
    }
    out->kind = ChallengeCheck::Kind::MaxGe;
  } else if (s.rfind("first-set ", 0) == 0) {
    const std::string rest = s.substr(10);
    const size_t at = rest.rfind(" by warp ");
    int64_t w = -1;
    if (at == std::string::npos || !parse_int(trim(rest.substr(at + 9)), &w) || w < 0) {
      *error = "'" + s + "': first-set needs 'by warp W'; " + kSyntax;
      return false;
    }
    out->kind = ChallengeCheck::Kind::FirstSet;
    out->warp = static_cast<uint32_t>(w);
    lhs = rest.substr(0, at);
  } else {
    *error = "'" + s + "': " + kSyntax;
    return false;
  }
  if (!parse_region(lhs, &out->region, &out->element)) {
    *error = "'" + s + "': no region name (a region as the trace names it, optionally with [element])";
    return false;
  }
  return true;
}

bool load_challenge(const std::string& path, Challenge* out, std::string* error) {
  *out = Challenge{};
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open the challenge file";
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const size_t colon = t.find(':');
    if (colon == std::string::npos) {
      *error = fmt::format("{}:{}: '{}' is not 'key: value'", path, n, t);
      return false;
    }
    out->fields[trim(t.substr(0, colon))] = trim(t.substr(colon + 1));
  }
  out->lab = out->fields["lab"];
  out->name = out->fields["name"];
  out->goal = out->fields["goal"];
  if (out->goal.empty() || out->fields["check"].empty()) {
    *error = path + ": a challenge file needs 'goal:' and 'check:' lines";
    return false;
  }
  std::string why;
  if (!parse_challenge_check(out->fields["check"], &out->check, &why)) {
    *error = path + ": check: " + why;
    return false;
  }
  return true;
}

ChallengeResult evaluate_challenge(const ChallengeCheck& check, const tr::Trace& t) {
  ChallengeResult r;
  int64_t region_id = -1;
  uint64_t elem_bytes = 4;
  if (check.kind != ChallengeCheck::Kind::Stuck) {
    for (const nlohmann::json& j : t.regions)
      if (j.value("name", "") == check.region) {
        region_id = j.value("id", int64_t(-1));
        elem_bytes = j.value("elem_bytes", uint64_t(4));
      }
    if (region_id < 0) {
      r.what = fmt::format("the trace has no region named '{}'", check.region);
      return r;
    }
  }
  std::string last_why;
  for (size_t li = 0; li < t.launches.size(); ++li) {
    const tr::Launch& L = t.launches[li];
    if (!L.recorded) continue;
    uint64_t steps = 0;
    int64_t value = 0;          // the element's current value
    uint64_t value_cursor = 0;  // the event that gave it (0: the launch's start)
    uint64_t value_steps = 0;
    bool first_set_seen = false;
    for (size_t i = L.first_event; i < L.end_event; ++i) {
      const tr::Event& e = t.event(i);
      const uint64_t cursor = i - L.first_event;
      const auto kind = static_cast<tr::EventKind>(e.kind);
      if (kind == tr::EventKind::WarpStep) ++steps;
      if (check.kind == ChallengeCheck::Kind::Stuck) {
        if (kind == tr::EventKind::KernelEnd &&
            (e.b == uint64_t(tr::KernelEndStatus::Deadlock) || e.b == uint64_t(tr::KernelEndStatus::Hang))) {
          r.reached = true;
          r.launch = li;
          r.cursor = cursor;
          r.steps = steps;
          r.what = e.b == uint64_t(tr::KernelEndStatus::Deadlock) ? "the launch ended in a deadlock"
                                                                  : "the launch ended in a hang";
          return r;
        }
        if (kind == tr::EventKind::KernelEnd) last_why = "the launch finished";
        continue;
      }
      if (kind != tr::EventKind::RegionUpdate || int64_t(e.aux & tr::kRegionIdMask) != region_id) continue;
      const bool snapshot = (e.aux & tr::kRegionSnapshot) != 0;
      if (check.kind == ChallengeCheck::Kind::FirstSet) {
        if (snapshot || e.b == 0 || first_set_seen) continue;
        first_set_seen = true;
        if (e.warp == check.warp) {
          r.reached = true;
          r.launch = li;
          r.cursor = cursor;
          r.steps = steps;
          r.what = fmt::format("warp {} set {} first", e.warp, check.region);
          return r;
        }
        last_why = fmt::format("warp {} set {} first", e.warp, check.region);
        continue;
      }
      if (e.a != check.element) continue;
      value = as_signed(e.b, elem_bytes);
      value_cursor = snapshot ? 0 : cursor;
      value_steps = snapshot ? 0 : steps;
      if (check.kind == ChallengeCheck::Kind::MaxGe && value >= check.value) {
        r.reached = true;
        r.launch = li;
        r.cursor = cursor;
        r.steps = steps;
        r.what = fmt::format("{} reached {}", check.region, value);
        return r;
      }
    }
    const std::string name = check.element ? fmt::format("{}[{}]", check.region, check.element) : check.region;
    if (check.kind == ChallengeCheck::Kind::FinalEq || check.kind == ChallengeCheck::Kind::FinalNe) {
      const bool ok = check.kind == ChallengeCheck::Kind::FinalEq ? value == check.value : value != check.value;
      if (ok) {
        r.reached = true;
        r.launch = li;
        r.cursor = value_cursor;
        r.steps = value_steps;
        r.what = fmt::format("{} ended at {}", name, value);
        return r;
      }
      last_why = fmt::format("{} ended at {}", name, value);
    } else if (check.kind == ChallengeCheck::Kind::MaxGe) {
      last_why = fmt::format("{} stayed below {}", name, check.value);
    } else if (check.kind == ChallengeCheck::Kind::FirstSet && !first_set_seen) {
      last_why = fmt::format("nobody set {}", check.region);
    }
  }
  r.what = last_why.empty() ? "the trace has no recorded launch" : last_why;
  return r;
}

std::string describe(const ChallengeResult& r) {
  if (r.reached) return fmt::format("goal reached in {} step{}: {}", r.steps, r.steps == 1 ? "" : "s", r.what);
  return "goal not reached: " + r.what;
}

}  // namespace synclab::viz
