// The text summary and the Chrome trace-event export.
#include <synclab/trace_export.h>
#include <synclab/trace_writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace synclab::trace {

namespace {

// A JSON value as short text: strings without quotes, null as "-".
std::string text_of(const nlohmann::json& j) {
  if (j.is_null()) return "-";
  if (j.is_string()) return j.get<std::string>();
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string field(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return "-";
  auto it = obj.find(key);
  return it == obj.end() ? std::string("-") : text_of(*it);
}

std::string dim3_text(const uint32_t d[3]) { return fmt::format("({},{},{})", d[0], d[1], d[2]); }

const char* status_name(uint64_t s) {
  switch (s) {
    case 0: return "ok";
    case 1: return "fault";
    case 2: return "deadlock";
    case 3: return "hang";
    case 4: return "budget exhausted";
  }
  return "unknown";
}

std::string launch_title(const Trace& t, int launch) {
  if (launch < 0) return "before the first launch";
  const Launch& l = t.launches[size_t(launch)];
  return fmt::format("launch {}: {} grid {} block {}", launch, l.display.empty() ? "?" : l.display, dim3_text(l.grid),
                     dim3_text(l.block));
}

// Lines named by a report's parties, "12, 14" (or "-").
std::string report_lines(const nlohmann::json& r) {
  std::set<std::string> lines;
  auto p = r.find("parties");
  if (p != r.end() && p->is_array())
    for (const nlohmann::json& party : *p) {
      if (!party.is_object()) continue;
      auto line = party.find("line");
      if (line == party.end() || line->is_null()) continue;
      std::string s = text_of(*line);
      auto file = party.find("file");
      if (file != party.end() && file->is_string() && !file->get<std::string>().empty())
        s = file->get<std::string>() + ":" + s;
      lines.insert(s);
    }
  if (lines.empty()) return "-";
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : ", ") + l;
  return out;
}

}  // namespace

std::string warp_track_name(const Trace& t, int launch, uint32_t warp) {
  uint64_t wpb = 0;
  if (launch >= 0 && size_t(launch) < t.launches.size()) wpb = t.launches[size_t(launch)].warps_per_block;
  if (wpb == 0) return fmt::format("warp {}", warp);
  return fmt::format("block {} warp {}", warp / wpb, warp % wpb);
}

// ---- summary -----------------------------------------------------------------------------------

void write_summary(const Trace& t, std::ostream& out) {
  const nlohmann::json& h = t.header;
  out << fmt::format("trace: {} ({} bytes, format version {})\n", t.path, t.file_bytes, t.version);
  out << fmt::format("program: {}\n", field(h, "program"));
  std::string device = "-";
  if (h.contains("device")) {
    const nlohmann::json& d = h["device"];
    if (!d.is_object()) {
      device = text_of(d);
    } else if (d.contains("profile")) {  // the simulator: profile name (and what it models)
      device = field(d, "profile");
      if (d.contains("name") && field(d, "name") != device) device += " (" + field(d, "name") + ")";
    } else {
      device = field(d, "name");
    }
  }
  out << fmt::format("backend: {}\n", t.gpu ? "gpu" : "sim");
  out << fmt::format("device: {}\n", device);
  if (!t.gpu) {
    out << fmt::format("model: {}\n", field(h, "model"));
    std::string sched = field(h, "scheduler");
    if (sched == "pct" && h.contains("pct_depth")) sched += fmt::format(" (depth {})", field(h, "pct_depth"));
    out << fmt::format("scheduler: {}\n", sched);
    out << fmt::format("seed: {}\n", field(h, "seed"));
  }
  out << fmt::format("launches: {}\n", t.launches.size());

  auto launch_block = [&](int l) {
    LaunchStats s = launch_stats(t, l);
    if (l >= 0) {
      const Launch& L = t.launches[size_t(l)];
      out << "\n" << launch_title(t, l) << "\n";
      if (L.warps_per_block) out << fmt::format("  warps per block: {}\n", L.warps_per_block);
      if (!L.recorded) {
        out << "  not recorded (left out by SYNCLAB_TRACE_KERNELS)\n";
        return;
      }
    } else {
      if (s.events == 0) return;
      out << "\n" << launch_title(t, l) << "\n";
    }
    out << fmt::format("  events: {}\n", s.events);
    std::string kinds;
    for (unsigned k = 1; k < 16; ++k)
      if (s.by_kind[k])
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", event_kind_name(uint8_t(k)), s.by_kind[k]);
    if (s.by_kind[0]) kinds += fmt::format("{}unknown {}", kinds.empty() ? "" : ", ", s.by_kind[0]);
    if (!kinds.empty()) out << "  by kind: " << kinds << "\n";
    out << fmt::format("  warps seen: {}\n", s.warps);
    out << fmt::format("  barrier releases: {}\n", s.barrier_releases);
    out << fmt::format("  atomics: {} ({} changed memory)\n", s.atomics, s.atomics_changed);
    out << fmt::format("  stores: {}\n", s.stores);
    if (s.host_writes || s.host_reads || s.host_malformed)
      out << fmt::format("  host accesses: {} writes, {} reads (the host's, to named mapped or managed memory){}\n",
                         s.host_writes, s.host_reads,
                         s.host_malformed ? fmt::format("; {} malformed host access event(s): not a read or write "
                                                        "of 1 to 8 bytes to global or host-mapped memory",
                                                        s.host_malformed)
                                          : std::string());
    if (s.events) {
      if (t.gpu)
        out << fmt::format("  time: {:.3f} us\n", double(s.last_time - s.first_time) / 1000.0);
      else
        out << fmt::format("  time: steps {} .. {}\n", s.first_time, s.last_time);
    }
    if (s.status != ~0ull) out << fmt::format("  status: {}\n", status_name(s.status));
    std::vector<Interval> iv = analyze_launch(t, l);
    uint64_t n[3] = {0, 0, 0}, open[3] = {0, 0, 0};
    for (const Interval& i : iv) {
      ++n[size_t(i.kind)];
      if (i.open_at_end) ++open[size_t(i.kind)];
    }
    auto opened = [&](int k) { return open[k] ? fmt::format(" ({} still open at the end)", open[k]) : std::string(); };
    out << fmt::format("  barrier waits: {}{}\n", n[0], opened(0));
    out << fmt::format("  spins: {}{}\n", n[1], opened(1));
    std::map<uint32_t, uint64_t> spin_lines;
    for (const Interval& i : iv)
      if (i.kind == IntervalKind::Spin) spin_lines[i.line] += i.iterations;
    for (const auto& [line, iters] : spin_lines)
      out << fmt::format("    spin at line {}: {} iterations\n", line, iters);
    out << fmt::format("  critical sections: {}{}\n", n[2], opened(2));
  };
  launch_block(-1);
  for (size_t l = 0; l < t.launches.size(); ++l) launch_block(int(l));

  out << fmt::format("\nregions: {}\n", t.regions.size());
  for (const nlohmann::json& r : t.regions) {
    std::string dims;
    auto d = r.find("dims");
    if (d != r.end() && d->is_array())
      for (const nlohmann::json& x : *d) dims += (dims.empty() ? "" : "x") + text_of(x);
    uint64_t addr = 0;
    auto a = r.find("address");
    if (a != r.end() && a->is_number_unsigned()) addr = a->get<uint64_t>();
    out << fmt::format("  region {}: {} {} {} at 0x{:x}, {} bytes\n", field(r, "id"), field(r, "name"),
                       field(r, "kind"), dims.empty() ? "-" : dims, addr, field(r, "bytes"));
  }
  for (const nlohmann::json& r : t.shared_regions) {  // (only traces that name __shared__ arrays)
    std::string dims;
    auto d = r.find("dims");
    if (d != r.end() && d->is_array())
      for (const nlohmann::json& x : *d) dims += (dims.empty() ? "" : "x") + text_of(x);
    auto k = r.find("kernel");
    const std::string kernel = k != r.end() && k->is_string() ? k->get<std::string>() : "";
    out << fmt::format("  shared region {}: {} {} {}, __shared__ {} of {}, {} bytes per block\n", field(r, "id"),
                       field(r, "name"), field(r, "kind"), dims.empty() ? "-" : dims, field(r, "variable"),
                       kernel.empty() ? "every kernel that has it" : kernel, field(r, "bytes"));
  }

  out << fmt::format("\nreports: {}\n", t.reports.size());
  bool races = false;
  for (const nlohmann::json& r : t.reports) {
    out << fmt::format("  report {} ({}, {}): {}\n", field(r, "id"), field(r, "kind"), field(r, "severity"),
                       field(r, "title"));
    out << fmt::format("    launch {}, lines: {}\n", field(r, "launch"), report_lines(r));
    races |= field(r, "kind") == "race";
  }
  if (races) out << "  (a race's accesses in the order they happened: synclab-trace interleaving FILE --report N)\n";

  out << "\n";
  if (t.complete) {
    out << fmt::format("complete: yes ({} events, {} dropped, {} filtered out{})\n", field(t.footer, "events"),
                       field(t.footer, "dropped"), field(t.footer, "filtered"),
                       t.footer.contains("stopped") && t.footer["stopped"].is_string()
                           ? "; recording stopped: " + t.footer["stopped"].get<std::string>()
                           : std::string());
  } else {
    out << fmt::format("complete: no (cut short after {} events)\n", t.event_count());
  }
  for (const std::string& w : t.warnings) out << "warning: " << w << "\n";
}

// ---- Chrome trace-event JSON -------------------------------------------------------------------

bool write_chrome_json(const Trace& t, std::ostream& out, std::string* error, const AnalysisOptions& opt) {
  // GPU times are absolute nanoseconds: shift them so the first event is at 0 (doubles in
  // microseconds keep their precision that way).
  uint64_t t0 = 0;
  if (t.gpu && t.event_count() > 0) {
    t0 = ~0ull;
    for (const EventChunk& c : t.chunks())
      for (size_t k = 0; k < c.count; ++k) t0 = std::min(t0, c.events[k].time);
  }
  auto us = [&](uint64_t time) -> double {
    if (!t.gpu) return double(time);
    return double(time - std::min(time, t0)) / 1000.0;
  };
  auto dur_us = [&](uint64_t b, uint64_t e) -> double { return t.gpu ? double(e - b) / 1000.0 : double(e - b); };

  bool first = true;
  auto emit = [&](const nlohmann::json& j) {
    out << (first ? "\n" : ",\n") << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first = false;
  };
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":";
  nlohmann::json other = {
      {"program", t.header.value("program", nlohmann::json())},
      {"backend", t.gpu ? "gpu" : "sim"},
      {"time_unit", t.gpu ? "1 us = 1 us of %globaltimer (first event at 0)" : "1 us = 1 simulator warp-step"},
      {"complete", t.complete}};
  for (const char* k : {"model", "scheduler", "seed", "device"})
    if (t.header.contains(k)) other[k] = t.header[k];
  out << other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out << ",\"traceEvents\":[";

  const int first_launch = (t.launches.empty() || t.launches.front().first_event > 0) ? -1 : 0;
  for (int l = first_launch; l < int(t.launches.size()); ++l) {
    const int pid = l + 2;  // pid 1: events before the first Kernel chunk
    size_t begin = l < 0 ? 0 : t.launches[size_t(l)].first_event;
    size_t end = l < 0 ? (t.launches.empty() ? t.event_count() : t.launches.front().first_event)
                       : t.launches[size_t(l)].end_event;
    emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", launch_title(t, l)}}}});
    emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", l + 1}}}});

    // Warps seen in the launch's events; each gets its track even without slices.
    std::set<uint32_t> warps;
    std::vector<size_t> reports;
    for (size_t c = begin < end ? t.chunk_of(begin) : t.chunks().size();
         c < t.chunks().size() && t.chunks()[c].first < end; ++c) {
      const EventChunk& ch = t.chunks()[c];
      for (size_t k = 0; k < ch.count; ++k) {
        const Event& e = ch.events[k];
        const size_t i = ch.first + k;
        if (i < begin || i >= end) continue;
        if (e.kind == uint8_t(EventKind::Report)) reports.push_back(i);
        if (e.kind != uint8_t(EventKind::KernelBegin) && e.kind != uint8_t(EventKind::KernelEnd)) warps.insert(e.warp);
      }
    }
    std::vector<Interval> ivs = analyze_launch(t, l, opt);
    for (const Interval& iv : ivs) warps.insert(iv.warp);

    // Slices of one warp must nest on a track; overlapping ones (lanes of one warp spinning
    // while another lane holds a lock) go to extra tracks of the same warp.
    constexpr uint64_t kSubTracks = 16;
    std::map<uint32_t, std::vector<uint64_t>> track_end;  // warp -> end time per sub-track
    std::map<std::pair<uint32_t, uint64_t>, bool> used;
    auto tid_of = [&](uint32_t warp, uint64_t sub) -> uint64_t { return (uint64_t(warp) + 1) * kSubTracks + sub; };
    for (const Interval& iv : ivs) {  // sorted by begin
      std::vector<uint64_t>& ends = track_end[iv.warp];
      uint64_t sub = 0;
      while (sub < ends.size() && ends[sub] > iv.begin) ++sub;
      if (sub == ends.size()) {
        if (ends.size() < kSubTracks)
          ends.push_back(0);
        else
          sub = kSubTracks - 1;
      }
      ends[sub] = std::max(ends[sub], iv.end);
      used[{iv.warp, sub}] = true;
      nlohmann::json args = {{"warp", iv.warp}, {"lanes", fmt::format("0x{:08x}", iv.lanes)}};
      if (iv.open_at_end) args["open_at_end"] = true;
      switch (iv.kind) {
        case IntervalKind::BarrierWait:
          args["block"] = iv.block;
          args["barrier"] = iv.barrier;
          break;
        case IntervalKind::Spin:
          args["line"] = iv.line;
          args["iterations"] = iv.iterations;
          args["pc"] = iv.pc;
          break;
        case IntervalKind::CriticalSection:
          args["region"] = iv.region;
          args["element"] = iv.element;
          if (iv.lane != kAllLanes) args["lane"] = iv.lane;
          break;
      }
      emit({{"ph", "X"},
            {"name", interval_name(t, iv)},
            {"cat", interval_kind_name(iv.kind)},
            {"pid", pid},
            {"tid", tid_of(iv.warp, sub)},
            {"ts", us(iv.begin)},
            {"dur", dur_us(iv.begin, iv.end)},
            {"args", args}});
    }
    for (size_t i : reports) {
      const Event& e = t.event(i);
      const nlohmann::json* r = t.report_by_id(e.a);
      std::string title = r ? field(*r, "title") : fmt::format("report {}", e.a);
      nlohmann::json args = {{"report", e.a}, {"line", uint32_t(e.b)}};
      if (r) {
        args["kind"] = r->value("kind", nlohmann::json());
        args["text"] = r->value("text", nlohmann::json());
      }
      emit({{"ph", "i"},
            {"s", "t"},
            {"name", title},
            {"cat", "report"},
            {"pid", pid},
            {"tid", tid_of(e.warp, 0)},
            {"ts", us(e.time)},
            {"args", args}});
    }
    for (uint32_t w : warps) {
      std::string name = warp_track_name(t, l, w);
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid_of(w, 0)}, {"args", {{"name", name}}}});
      emit({{"ph", "M"},
            {"name", "thread_sort_index"},
            {"pid", pid},
            {"tid", tid_of(w, 0)},
            {"args", {{"sort_index", tid_of(w, 0)}}}});
      for (uint64_t sub = 1; sub < kSubTracks; ++sub) {
        if (!used.count({w, sub})) continue;
        emit({{"ph", "M"},
              {"name", "thread_name"},
              {"pid", pid},
              {"tid", tid_of(w, sub)},
              {"args", {{"name", fmt::format("{} ({})", name, sub + 1)}}}});
        emit({{"ph", "M"},
              {"name", "thread_sort_index"},
              {"pid", pid},
              {"tid", tid_of(w, sub)},
              {"args", {{"sort_index", tid_of(w, sub)}}}});
      }
    }
  }
  out << "\n]}\n";
  out.flush();
  if (!out) {
    if (error) *error = "writing the JSON failed";
    return false;
  }
  return true;
}

}  // namespace synclab::trace
