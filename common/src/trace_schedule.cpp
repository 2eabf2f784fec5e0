#include <synclab/trace_reader.h>
#include <synclab/trace_schedule.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace synclab::trace {

size_t Schedule::steps(size_t n) const {
  if (n >= launches.size()) return 0;
  size_t k = 0;
  for (const ScheduleChoice& c : launches[n]) k += c.kind == ScheduleChoice::Kind::Step;
  return k;
}

namespace {

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// A non-negative number (decimal, or hex with 0x) that fits in `max`.
bool number(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno || *end != '\0' || v > max) return false;
  *out = v;
  return true;
}

constexpr const char* kSyntax =
    "expected one of: launch N, step W, step W 0xMASK, read LANE K, then rr|random|pct, seed S";

}  // namespace

bool parse_schedule(const std::string& text, Schedule* out, int* line_out, std::string* error) {
  *out = Schedule{};
  size_t launch = 0;
  std::vector<ScheduleChoice> pending_reads;  // reads waiting for their step
  int lineno = 0;
  auto fail = [&](int line, std::string why) {
    *line_out = line;
    *error = std::move(why);
    return false;
  };
  auto target = [&]() -> std::vector<ScheduleChoice>& {
    if (out->launches.size() <= launch) {
      out->launches.resize(launch + 1);
      out->launch_lines.resize(launch + 1, 0);
    }
    return out->launches[launch];
  };
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    ++lineno;
    std::string line = raw.substr(0, raw.find('#'));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    const std::string& cmd = w[0];
    if (cmd == "launch") {
      uint64_t n = 0;
      if (w.size() != 2 || !number(w[1], 1u << 20, &n))
        return fail(lineno, "'" + line + "': a launch line is `launch N`, N a launch number 0, 1, 2, ...");
      if (!pending_reads.empty())
        return fail(pending_reads.front().line, "this read line has no step line after it in its launch");
      launch = n;
      target();
      out->launch_lines[launch] = lineno;
    } else if (cmd == "step") {
      uint64_t warp = 0, mask = 0;
      if (w.size() < 2 || w.size() > 3 || !number(w[1], 0xffffffffu, &warp))
        return fail(lineno, "'" + line + "': a step line is `step W` or `step W 0xMASK`, W a warp number");
      ScheduleChoice c;
      c.warp = static_cast<uint32_t>(warp);
      c.line = lineno;
      if (w.size() == 3) {
        if (!number(w[2], 0xffffffffu, &mask) || mask == 0)
          return fail(lineno, "'" + w[2] +
                                  "' is not a lane mask: write the group's lanes as 0x followed by 1 to 8 "
                                  "hex digits (lane 0 is bit 0), not zero");
        c.has_mask = true;
        c.mask = static_cast<uint32_t>(mask);
      }
      std::vector<ScheduleChoice>& t = target();
      t.insert(t.end(), pending_reads.begin(), pending_reads.end());
      pending_reads.clear();
      t.push_back(c);
    } else if (cmd == "read") {
      uint64_t lane = 0, back = 0;
      if (w.size() != 3 || !number(w[1], 31, &lane) || !number(w[2], 1u << 20, &back))
        return fail(lineno, "'" + line +
                                "': a read line is `read LANE K`: lane 0..31 of the next step's warp reads the K-th "
                                "newest value it may read (0: the newest)");
      for (const ScheduleChoice& r : pending_reads)
        if (r.lane == lane) return fail(lineno, fmt::format("lane {} already has a read line for this step", lane));
      ScheduleChoice c;
      c.kind = ScheduleChoice::Kind::Read;
      c.lane = static_cast<uint32_t>(lane);
      c.back = static_cast<uint32_t>(back);
      c.line = lineno;
      pending_reads.push_back(c);
    } else if (cmd == "seed") {
      uint64_t s = 0;
      if (w.size() != 2 || !number(w[1], UINT64_MAX, &s))
        return fail(lineno, "'" + line + "': a seed line is `seed S`, S the recorded run's seed (a number)");
      if (out->seed_line)
        return fail(lineno, fmt::format("a second seed line (the first is line {}); keep one", out->seed_line));
      out->has_seed = true;
      out->seed = s;
      out->seed_line = lineno;
    } else if (cmd == "then") {
      if (w.size() != 2 || (w[1] != "rr" && w[1] != "random" && w[1] != "pct"))
        return fail(lineno, "'" + line + "': a then line is `then rr`, `then random` or `then pct`");
      if (out->then_line)
        return fail(lineno, fmt::format("a second then line (the first is line {}); keep one", out->then_line));
      out->then = w[1];
      out->then_line = lineno;
    } else {
      return fail(lineno, "'" + line + "' is not a schedule line; " + kSyntax);
    }
  }
  if (!pending_reads.empty())
    return fail(pending_reads.front().line,
                "this read line has no step line after it (a read applies to the next step)");
  return true;
}

namespace {

std::string header_text(const Trace& t) {
  const nlohmann::json& h = t.header;
  auto str = [&](const char* k, const char* dflt) {
    return h.contains(k) && h[k].is_string() ? h[k].get<std::string>() : std::string(dflt);
  };
  std::string seed = h.contains("seed") ? h["seed"].dump() : "?";
  std::string out = "# schedule of " + t.path + "\n";
  std::string memory = h.contains("memory") ? ", memory " + str("memory", "sc") : "";
  out += fmt::format("# recorded with model {}{}, scheduler {}, seed {}: replay it with the same settings\n",
                     str("model", "its"), memory, str("scheduler", "rr"), seed);
  const std::string sched = str("scheduler", "rr");
  if (sched == "rr" || sched == "random" || sched == "pct") out += "then " + sched + "\n";
  if (h.contains("seed") && h["seed"].is_number_unsigned()) out += fmt::format("seed {}\n", h["seed"].get<uint64_t>());
  return out;
}

// Appends launch i's WarpSteps with cursor <= last (all of them: last = UINT64_MAX). Every step
// names its lanes: under lockstep the mask is the one group the warp has, which replay accepts,
// and a program may change its warp model between launches.
void append_launch(const Trace& t, size_t i, uint64_t last, std::string* out) {
  const Launch& L = t.launches[i];
  uint64_t number = i;
  if (L.json.contains("launch") && L.json["launch"].is_number_unsigned()) number = L.json["launch"].get<uint64_t>();
  *out += fmt::format("launch {}\n", number);
  for (size_t e = L.first_event; e < L.end_event && e - L.first_event <= last; ++e) {
    const Event& ev = t.event(e);
    if (ev.kind != static_cast<uint8_t>(EventKind::WarpStep)) continue;
    *out += fmt::format("step {} 0x{:08x}\n", ev.warp, static_cast<uint32_t>(ev.a));
  }
}

}  // namespace

std::string schedule_of(const Trace& t) {
  std::string out = header_text(t);
  for (size_t i = 0; i < t.launches.size(); ++i) append_launch(t, i, UINT64_MAX, &out);
  return out;
}

std::string schedule_prefix(const Trace& t, size_t launch, uint64_t event) {
  std::string out = header_text(t);
  for (size_t i = 0; i < t.launches.size() && i <= launch; ++i)
    append_launch(t, i, i == launch ? event : UINT64_MAX, &out);
  return out;
}

}  // namespace synclab::trace
