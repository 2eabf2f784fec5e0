// The visualizer's trace model (see model.h): indexing, replay with copy-on-write checkpoints,
// lane states, navigation marks and timeline queries.
//
// Where things are (the sections below, in this order):
//   JSON access       fields that may have the wrong type (jstr, ju64, ji64, ju32_array); the limits on warps
//                     and region cells (passes over events: Trace::scan, Trace::visit)
//   Names             launch_status_name, lane_state_name, mark_name
//   The model's data  LaunchData (a launch's steps per warp, marks, spans, checkpoints) and Model::Impl; reading
//                     the header, region, report and module chunks (parse_header, parse_region, parse_report,
//                     parse_module)
//   Open              Model::open and its loaders, in the order it calls them: the chunks (load_regions,
//                     load_reports, load_launch: a launch and its source module); per launch, pass 1
//                     (count_steps: times, status, warp count, steps per warp), its replay context
//                     (launch_context) and pass 2 (replay_launch: checkpoints, marks, critical sections in
//                     shared lock bits); the analysis' spans, computed on another thread (add_spans); each
//                     launch's reports, in cursor order (assign_reports)
//   Plain accessors   the trace, its header and tables (path, launches, regions, reports, ...); module_of, file_path,
//                     function; event_at, time_of, cursor_at_time; checkpoint_count, memory_bytes
//   Lane states       build_view: a State from a replay state (each lane's LaneState, via span_lanes; the
//                     regions' cells); restore and replay from the nearest checkpoint; Model::state_at
//   Navigation        Model::next and Model::prev by Mark, optionally of one warp (mark_matches);
//                     first_interesting
//   Region peaks      Model::peak: the event after which the chosen regions hold the most (PeakMeasure)
//   Timeline          spans, spans_in, activity, step_count, active_warps; the host row (host_accesses,
//                     host_access_region)
//   Player            Player: one launch's replay state, moved forward in place when it can (seek, step, state)
//   Sources           Model::source_lines: a source file's lines, read once and kept
#include "viz/core/model.h"

#include "viz/core/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace synclab::viz {

namespace {

constexpr uint8_t K(EventKind k) { return static_cast<uint8_t>(k); }

// Set bits of a 32-bit mask (without relying on the POPCNT instruction).
inline uint32_t popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

// ---- defensive JSON access (a readable file may still hold fields of the wrong type) ----------

std::string jstr(const nlohmann::json& j, const char* key, const std::string& dflt = "") {
  if (!j.is_object()) return dflt;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : dflt;
}

bool ju64(const nlohmann::json& j, const char* key, uint64_t* out) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  if (it == j.end()) return false;
  if (it->is_number_unsigned()) {
    *out = it->get<uint64_t>();
    return true;
  }
  if (it->is_number_integer()) {
    int64_t v = it->get<int64_t>();
    if (v < 0) return false;
    *out = uint64_t(v);
    return true;
  }
  return false;
}

int64_t ji64(const nlohmann::json& j, const char* key, int64_t dflt) {
  if (!j.is_object()) return dflt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return dflt;
  return it->get<int64_t>();
}

std::vector<uint32_t> ju32_array(const nlohmann::json& j) {
  std::vector<uint32_t> v;
  if (!j.is_array()) return v;
  v.reserve(j.size());
  for (const auto& x : j) {
    if (x.is_number_unsigned())
      v.push_back(uint32_t(std::min<uint64_t>(x.get<uint64_t>(), 0xffffffffu)));
    else if (x.is_number_integer() && x.get<int64_t>() >= 0)
      v.push_back(uint32_t(std::min<int64_t>(x.get<int64_t>(), 0xffffffff)));
    else
      v.push_back(0);
  }
  return v;
}

constexpr uint64_t kMaxWarpsGuess = 1u << 22;     // more warps than this are not believed
constexpr uint64_t kMaxRegionCells = 1ull << 26;  // larger regions are not tracked

}  // namespace

// ---- names ---------------------------------------------------------------------------------------

const char* launch_status_name(LaunchStatus s) {
  switch (s) {
    case LaunchStatus::Ok: return "ok";
    case LaunchStatus::Fault: return "fault";
    case LaunchStatus::Deadlock: return "deadlock";
    case LaunchStatus::Hang: return "hang";
    case LaunchStatus::Budget: return "budget exhausted";
    case LaunchStatus::Unknown: return "unknown";
    case LaunchStatus::Running: return "no end (cut short)";
  }
  return "unknown";
}

const char* lane_state_name(LaneState s) {
  switch (s) {
    case LaneState::Inactive: return "inactive";
    case LaneState::Active: return "active";
    case LaneState::MaskedOff: return "masked off";
    case LaneState::AtBarrier: return "at barrier";
    case LaneState::Spinning: return "spinning";
    case LaneState::InCritical: return "in critical section";
    case LaneState::Exited: return "exited";
    case LaneState::StaleRead: return "read an old value";
  }
  return "unknown";
}

const char* mark_name(Mark m) {
  switch (m) {
    case Mark::Report: return "report";
    case Mark::Acquire: return "acquire";
    case Mark::Release: return "release";
    case Mark::BarrierArrive: return "barrier arrive";
    case Mark::BarrierRelease: return "barrier release";
    case Mark::SpinStart: return "spin start";
    case Mark::LaneExit: return "lane exit";
    case Mark::WarpStep: return "warp step";
    case Mark::RegionUpdate: return "region update";
    case Mark::StaleRead: return "stale read";
    case Mark::Reordering: return "reordered store";
    case Mark::Visible: return "write visible to all";
  }
  return "unknown";
}

// ---- the model's data ----------------------------------------------------------------------------

// A vector whose resize() leaves new elements uninitialized (they are all written right after).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using RawVec = std::vector<T, UninitAllocator<T>>;

using detail::Checkpoint;
using detail::LaunchCtx;
using detail::ReplayState;

struct LaunchData {
  LaunchCtx ctx;
  // per-warp WarpSteps (CSR): steps of warp w are [step_off[w], step_off[w + 1])
  std::vector<uint32_t> step_off;
  // Each step's time (the latest Event::time so far: sorted per warp), as an offset from the
  // launch's first time (LaunchInfo::first_time) in 32 bits when the launch's times span less than
  // 2^32 (step_time32), else whole (step_time).
  RawVec<uint32_t> step_time32;
  RawVec<uint64_t> step_time;
  bool narrow_times() const { return step_time.empty(); }  // (also when the launch has no steps)
  RawVec<uint32_t> step_cursor;
  RawVec<uint32_t> step_lanes;  // inclusive prefix sums of active-lane counts (mod 2^32)
  // navigation marks (cursors, sorted), indexed by Mark
  std::vector<uint32_t> marks[12];
  // spans, sorted by (warp, first); spans of warp w are [span_off[w], span_off[w + 1])
  std::vector<Span> spans;
  std::vector<uint32_t> span_off;
  std::vector<uint32_t> span_max_last;  // prefix max of `last` within the warp's spans
  std::vector<uint64_t> span_max_end;   // prefix max of `end` within the warp's spans
  std::vector<Checkpoint> checkpoints;
  std::vector<uint32_t> reports;  // indices into Model reports
  std::vector<uint32_t> active_warps;
  std::vector<uint32_t> host;  // cursors of the well-formed HostAccess events (the host row)
  uint64_t first_interesting = 0;
  size_t checkpoint_bytes = 0;
};

// (clang-tidy 14 says an exception may escape its implicit special members; none of its members'
// destructors throws.)
struct Model::Impl {  // NOLINT(bugprone-exception-escape)
  std::unique_ptr<trace::Trace> trace;
  HeaderInfo header;
  std::string warning;
  std::vector<LaunchInfo> launches;
  std::vector<RegionInfo> regions;
  std::vector<ReportInfo> reports;
  std::vector<SourceModule> modules;
  std::vector<LaunchData> data;
  std::shared_ptr<detail::Zero> zero;
  mutable std::mutex source_mu;
  mutable std::map<std::string, std::unique_ptr<std::vector<std::string>>> sources;

  const Event& ev(const LaunchInfo& L, uint64_t cursor) const { return trace->event(L.first_event + cursor); }
};

namespace {

const Event kNoEvent{};
const std::string kEmpty;
const std::vector<uint32_t> kNoIndices;
const std::vector<Span> kNoSpans;

HeaderInfo parse_header(const trace::Trace& t) {
  HeaderInfo h;
  const nlohmann::json& j = t.header;
  h.json = j;
  h.program = jstr(j, "program");
  h.gpu = t.gpu;
  h.backend = jstr(j, "backend", t.gpu ? "gpu" : "sim");
  if (j.is_object()) {
    auto d = j.find("device");
    if (d != j.end()) {
      if (d->is_string())
        h.device = d->get<std::string>();
      else if (d->is_object()) {
        h.device = jstr(*d, "name");
        h.device_profile = jstr(*d, "profile");
      }
    }
  }
  h.model = jstr(j, "model");
  h.scheduler = jstr(j, "scheduler");
  h.has_seed = ju64(j, "seed", &h.seed);
  h.time_unit = jstr(j, "time_unit", t.gpu ? "ns" : "warp step");
  h.created = jstr(j, "created");
  return h;
}

RegionInfo parse_region(const nlohmann::json& j, std::vector<std::string>* warnings) {
  RegionInfo r;
  uint64_t v = 0;
  if (ju64(j, "id", &v)) r.id = uint32_t(std::min<uint64_t>(v, 0xffffffffu));
  r.name = jstr(j, "name");
  r.kind_name = jstr(j, "kind");
  r.kind = r.kind_name == "lock-bits" ? RegionKind::LockBits
           : r.kind_name == "flags"   ? RegionKind::Flags
           : r.kind_name == "matrix"  ? RegionKind::Matrix
           : r.kind_name == "array"   ? RegionKind::Array
                                      : RegionKind::Unknown;
  ju64(j, "address", &r.address);
  ju64(j, "bytes", &r.bytes);
  if (ju64(j, "elem_bits", &v)) r.elem_bits = uint32_t(std::min<uint64_t>(v, 0xffffffffu));
  if (ju64(j, "elem_bytes", &v)) r.elem_bytes = uint32_t(std::min<uint64_t>(v, 0xffffffffu));
  if (r.elem_bytes == 0 && r.elem_bits >= 8) r.elem_bytes = r.elem_bits / 8;  // (a writer that left it out)
  std::vector<uint32_t> dims;
  if (j.is_object()) {
    auto d = j.find("dims");
    if (d != j.end()) dims = ju32_array(*d);
  }
  if (dims.size() == 1) {
    r.rows = 1;
    r.cols = dims[0];
  } else if (dims.size() >= 2) {
    r.rows = dims[0];
    r.cols = dims[1];
  } else {
    // no shape: one row of elements
    const uint64_t n = r.kind == RegionKind::LockBits ? r.bytes * 8 : (r.elem_bytes ? r.bytes / r.elem_bytes : 0);
    r.rows = 1;
    r.cols = uint32_t(std::min<uint64_t>(n, 0xffffffffu));
  }
  r.cells = uint64_t(r.rows) * r.cols;
  if (r.cells > kMaxRegionCells) {
    warnings->push_back(
        fmt::format("region {} (\"{}\") has {} elements; regions above {} elements are not "
                    "tracked",
                    r.id, r.name, r.cells, kMaxRegionCells));
    r.cells = 0;
  }
  return r;
}

ReportInfo parse_report(const nlohmann::json& j) {
  ReportInfo r;
  r.json = j;
  ju64(j, "id", &r.id);
  r.kind = jstr(j, "kind");
  r.severity = jstr(j, "severity");
  r.title = jstr(j, "title");
  r.text = jstr(j, "text");
  r.file = jstr(j, "file");
  r.line = ji64(j, "line", 0);
  if (j.is_object()) {
    auto p = j.find("parties");
    if (p != j.end() && p->is_array())
      for (const auto& q : *p) {
        if (!q.is_object()) continue;
        ReportParty party;
        party.block = ji64(q, "block", -1);
        party.warp = ji64(q, "warp", -1);
        party.lane = int(ji64(q, "lane", -1));
        party.line = ji64(q, "line", 0);
        party.file = jstr(q, "file");
        party.access = jstr(q, "access");
        r.parties.push_back(std::move(party));
      }
  }
  return r;
}

void parse_module(const nlohmann::json& k, SourceModule* m) {
  auto f = k.find("files");
  if (f != k.end() && f->is_array())
    for (const auto& x : *f) m->files.push_back(x.is_string() ? x.get<std::string>() : std::string());
  auto fn = k.find("functions");
  if (fn != k.end() && fn->is_array())
    for (const auto& x : *fn) {
      SourceFunction s;
      s.name = jstr(x, "name");
      s.display = jstr(x, "display", s.name);
      if (x.is_object()) {
        auto l = x.find("lines");
        if (l != x.end()) s.lines = ju32_array(*l);
        auto ff = x.find("files");
        if (ff != x.end()) s.files = ju32_array(*ff);
      }
      m->functions.push_back(std::move(s));
    }
}

}  // namespace

// ---- open ----------------------------------------------------------------------------------------

Model::Model() : impl_(new Impl) {}
Model::~Model() = default;

namespace {

using Warnings = std::vector<std::string>;

// The Region and SharedRegion chunks (a shared region: one copy per block, placed per launch).
void load_regions(const trace::Trace& t, Model::Impl& I, Warnings& warnings) {
  for (const nlohmann::json& j : t.regions) I.regions.push_back(parse_region(j, &warnings));
  // Shared regions (the reader checked their fields): one copy per block.
  for (const nlohmann::json& j : t.shared_regions) {
    RegionInfo r = parse_region(j, &warnings);
    r.shared = true;
    r.address = 0;
    r.variable = jstr(j, "variable");
    r.kernel = jstr(j, "kernel");
    I.regions.push_back(std::move(r));
  }
}

// The Report chunks; returns each report's index by its id.
std::unordered_map<uint64_t, uint32_t> load_reports(const trace::Trace& t, Model::Impl& I) {
  std::unordered_map<uint64_t, uint32_t> report_by_id;
  for (const nlohmann::json& j : t.reports) {
    I.reports.push_back(parse_report(j));
    report_by_id.emplace(I.reports.back().id, uint32_t(I.reports.size() - 1));
  }
  return report_by_id;
}

// Launch l's Kernel chunk: its shape, where it has the shared regions, its events, and its source
// module (a module of its own, or one an earlier launch gave by id).
void load_launch(const trace::Launch& src, size_t l, Model::Impl& I, std::unordered_map<uint64_t, int>& module_by_id,
                 Warnings& warnings) {
  LaunchInfo& L = I.launches[l];
  L.index = int(l);
  L.json = src.json;
  L.name = src.name;
  L.display = src.display;
  uint64_t v = l;
  ju64(src.json, "launch", &v);
  L.launch = v;
  for (int d = 0; d < 3; ++d) {
    L.grid[d] = src.grid[d];
    L.block[d] = src.block[d];
  }
  const unsigned __int128 blocks = (unsigned __int128)L.grid[0] * L.grid[1] * L.grid[2];
  L.blocks = blocks > ~0ull ? ~0ull : uint64_t(blocks);
  const unsigned __int128 tpb128 = (unsigned __int128)L.block[0] * L.block[1] * L.block[2];
  uint64_t tpb = tpb128 > 0xffffffffu ? 0xffffffffu : uint64_t(tpb128);
  if (ju64(src.json, "threads_per_block", &v)) tpb = v;
  L.threads_per_block = uint32_t(std::min<uint64_t>(tpb, 0xffffffffu));
  uint64_t wpb = src.warps_per_block ? src.warps_per_block : (tpb + 31) / 32;
  L.warps_per_block = uint32_t(std::min<uint64_t>(std::max<uint64_t>(wpb, 1), 0xffffffffu));
  L.recorded = src.recorded;
  // Where the launch has the shared regions (Kernel chunk "shared_regions": [{id, offset}]).
  L.shared_offset.assign(I.regions.size(), -1);
  if (src.json.is_object()) {
    auto sr = src.json.find("shared_regions");
    if (sr != src.json.end() && sr->is_array())
      for (const auto& x : *sr) {
        uint64_t id = 0, off = 0;
        if (!x.is_object() || !ju64(x, "id", &id) || !ju64(x, "offset", &off) || off > (1ull << 40)) {
          warnings.push_back(fmt::format("launch {}: a \"shared_regions\" entry is not {{id, offset}}; skipped", l));
          continue;
        }
        bool found = false;
        for (size_t r = 0; r < I.regions.size(); ++r)
          if (I.regions[r].shared && I.regions[r].id == id && L.shared_offset[r] < 0) {
            L.shared_offset[r] = int64_t(off);
            found = true;
            break;
          }
        if (!found)
          warnings.push_back(fmt::format(
              "launch {}: \"shared_regions\" names region {}, which no SharedRegion chunk describes", l, id));
      }
  }
  L.first_event = src.first_event;
  L.end_event = src.end_event;
  L.steps = L.end_event - L.first_event;
  uint64_t module_id = 0;
  const bool has_module_id = ju64(src.json, "module", &module_id);
  const bool has_source = src.json.is_object() && (src.json.contains("files") || src.json.contains("functions"));
  if (has_source) {
    SourceModule sm;
    parse_module(src.json, &sm);
    I.modules.push_back(std::move(sm));
    L.module = int(I.modules.size() - 1);
    if (has_module_id) module_by_id[module_id] = L.module;
  } else if (has_module_id) {
    auto it = module_by_id.find(module_id);
    if (it != module_by_id.end()) L.module = it->second;
  } else if (I.modules.size() == 1) {
    L.module = 0;  // a writer that names no modules: the only one there is
  }
}

// Pass 1 over launch l's events: its times, status and warp count, and D's steps per warp (their
// tables sized for pass 2) and active warps.
void count_steps(const trace::Trace& tr, size_t l, LaunchInfo& L, LaunchData& D, Warnings& warnings) {
  uint64_t begin_warps = 0;
  bool begin_seen = false;
  L.status = LaunchStatus::Running;
  uint32_t max_warp = 0;
  bool any_warp = false;
  bool first = true;
  std::vector<uint32_t> counts;  // WarpSteps per warp
  std::vector<uint8_t> seen;     // warps with events
  // Times should never decrease within a launch (docs/trace-format.md); a damaged file's may.
  // The model then uses the latest time so far wherever it needs sorted times.
  uint64_t back_at = 0, back_time = 0, back_prev = 0;
  tr.scan(L.first_event, L.end_event, [&](const Event& e, size_t index) {
    if (first) {
      L.first_time = L.last_time = e.time;
      first = false;
    }
    if (e.time < L.last_time) {
      if (L.time_backsteps++ == 0) {
        back_at = index - L.first_event;
        back_time = e.time;
        back_prev = L.last_time;
      }
    }
    L.last_time = std::max(L.last_time, e.time);
    if (e.kind == K(EventKind::KernelBegin) && !begin_seen) {
      begin_seen = true;
      begin_warps = e.b;
    } else if (e.kind == K(EventKind::KernelEnd)) {
      L.status = e.b <= 4 ? LaunchStatus(e.b) : LaunchStatus::Unknown;
    }
    const bool snapshot = e.kind == K(EventKind::RegionUpdate) && (e.aux & trace::kRegionSnapshot);
    const bool host = e.kind == K(EventKind::HostAccess);  // the host is no warp
    if (e.kind != K(EventKind::KernelBegin) && e.kind != K(EventKind::KernelEnd) && !snapshot && !host) {
      max_warp = std::max(max_warp, e.warp);
      any_warp = true;
      if (e.warp < kMaxWarpsGuess) {
        if (e.warp >= counts.size()) {
          counts.resize(std::max<size_t>(size_t(e.warp) + 1, 2 * counts.size()), 0);
          seen.resize(counts.size(), 0);
        }
        seen[e.warp] = 1;
        if (e.kind == K(EventKind::WarpStep)) ++counts[e.warp];
      }
    }
  });
  // The warp count: KernelBegin's, else the Kernel chunk's shape, else the highest warp seen.
  const unsigned __int128 shape_warps = (unsigned __int128)L.blocks * L.warps_per_block;
  uint64_t warps = 0;
  if (begin_warps > 0 && begin_warps <= kMaxWarpsGuess)
    warps = begin_warps;
  else if (shape_warps > 0 && shape_warps <= kMaxWarpsGuess)
    warps = uint64_t(shape_warps);
  else if (any_warp)
    warps = std::min<uint64_t>(uint64_t(max_warp) + 1, kMaxWarpsGuess);
  if (L.time_backsteps > 0)
    warnings.push_back(
        fmt::format("launch {}: event times go backwards at {} event(s), first at event {} (time {} after {}): "
                    "the trace is damaged; the timeline places such events at the latest earlier time",
                    l, L.time_backsteps, back_at, back_time, back_prev));
  if (begin_warps > kMaxWarpsGuess || (begin_warps == 0 && shape_warps > kMaxWarpsGuess))
    warnings.push_back(fmt::format("launch {} claims more than {} warps; showing {}", l, kMaxWarpsGuess, warps));
  L.warps = uint32_t(warps);

  counts.resize(L.warps, 0);  // warps past the launch's are skipped
  seen.resize(L.warps, 0);
  D.step_off.assign(size_t(L.warps) + 1, 0);
  for (uint32_t w = 0; w < L.warps; ++w) D.step_off[w + 1] = D.step_off[w] + counts[w];
  for (uint32_t w = 0; w < L.warps; ++w)
    if (seen[w]) D.active_warps.push_back(w);
  const size_t nsteps = D.step_off[L.warps];
  if (L.last_time - L.first_time <= uint64_t(UINT32_MAX))
    D.step_time32.resize(nsteps);
  else
    D.step_time.resize(nsteps);
  D.step_cursor.resize(nsteps);
  D.step_lanes.resize(nsteps);
}

// The replay's view of launch l's shape and regions (LaunchCtx): each region's cells in this launch
// (a shared one per block, where the launch has it; none past the tracking limit).
void launch_context(const Model::Impl& I, size_t l, const LaunchInfo& L, LaunchCtx& C, Warnings& warnings) {
  C.warps = L.warps;
  C.warps_per_block = L.warps_per_block;
  for (auto& x : C.region_index) x = -1;
  C.blocks = L.warps_per_block ? (uint64_t(L.warps) + L.warps_per_block - 1) / L.warps_per_block : 0;
  for (size_t r = 0; r < I.regions.size(); ++r) {
    const RegionInfo& R = I.regions[r];
    if (R.id < 256 && C.region_index[R.id] < 0) C.region_index[R.id] = int16_t(r);
    uint64_t cells = R.cells;
    if (R.shared) {
      const unsigned __int128 all = (unsigned __int128)R.cells * C.blocks;
      if (L.shared_offset[r] < 0) {
        cells = 0;
      } else if (all > kMaxRegionCells) {
        warnings.push_back(
            fmt::format("launch {}: shared region \"{}\" has {} cells in {} blocks; above {} cells it is not tracked",
                        l, R.name, R.cells, C.blocks, kMaxRegionCells));
        cells = 0;
      } else {
        cells = uint64_t(all);
      }
    }
    C.region_cells.push_back(cells);
    C.region_shared.push_back(R.shared);
    C.region_block_cells.push_back(R.shared && cells ? R.cells : 0);
    C.region_bits.push_back(R.kind == RegionKind::LockBits);
    C.region_base.push_back(R.shared ? uint64_t(std::max<int64_t>(L.shared_offset[r], 0)) : R.address);
    C.region_bytes.push_back(R.bytes);
    C.region_elem_bytes.push_back(R.kind == RegionKind::LockBits ? 0 : std::max<uint32_t>(R.elem_bytes, 1));
  }
}

// Counts of events pass 2 skipped, for the warnings.
struct Skipped {
  uint64_t events = 0;          // naming a warp, block or region element the launch does not have
  uint64_t host_malformed = 0;  // HostAccess events that are not a host read or write of 1-8 bytes
};

// Pass 2 over launch l's events: replays them, with checkpoints while their memory stays within
// the budget, the navigation marks, each step's time, cursor and lanes, the reports' cursors, and
// the critical sections in shared lock-bits regions.
void replay_launch(Model::Impl& I, size_t l, const ModelOptions& opt,
                   const std::unordered_map<uint64_t, uint32_t>& report_by_id, Skipped& skipped) {
  const trace::Trace& tr = *I.trace;
  LaunchInfo& L = I.launches[l];
  LaunchData& D = I.data[l];
  const LaunchCtx& C = D.ctx;
  std::vector<uint32_t> fill(D.step_off.begin(), D.step_off.end() - 1);
  ReplayState rs;
  detail::init_state(C, *I.zero, &rs);
  D.checkpoints.push_back(Checkpoint{0, rs});
  size_t cp_bytes = detail::table_bytes(rs);
  size_t cloned = 0;
  uint64_t last_cp = 0;
  const double budget = std::max(0.0, opt.checkpoint_bytes_per_event);
  const uint64_t kmin = std::max<uint32_t>(opt.min_checkpoint_interval, 1);
  detail::Marks marks;
  for (auto& v : D.marks) v.clear();
  uint64_t latest_time = 0;  // step times must be sorted per warp (activity's binary search)
  // Critical sections in shared lock-bits regions, which synclab::trace::analyze (global
  // regions only) does not see: the holder of each held bit of each block's copy, by (region
  // index, cell), from the update that set it to the one that clears it. D.spans gets them
  // here; the analysis' intervals join them (add_spans).
  struct Holder {
    uint32_t warp, cursor;
    uint8_t lane;
    uint64_t time;
  };
  std::map<std::pair<size_t, uint64_t>, Holder> holders;
  auto critical_section = [&](size_t ri, uint64_t cell, const Holder& h, uint64_t end, uint32_t last, bool open) {
    Span s;
    s.kind = SpanKind::CriticalSection;
    s.begin = h.time;
    s.end = std::max(end, h.time);
    s.first = h.cursor;
    s.last = last;
    s.warp = h.warp;
    s.lanes = h.lane < 32 ? 1u << h.lane : 0u;
    s.info = I.regions[ri].id;
    s.element = uint32_t(std::min<uint64_t>(cell % std::max<uint64_t>(C.region_block_cells[ri], 1), 0xffffffffu));
    s.lane = h.lane;
    s.open_at_end = open;
    D.spans.push_back(s);
  };
  auto shared_locks = [&](const Event& e, uint32_t c) {
    if ((e.aux & trace::kRegionSnapshot) || e.warp >= L.warps) return;
    const int ri = C.region_index[e.aux & trace::kRegionIdMask];
    if (ri < 0 || !C.region_shared[size_t(ri)] || !C.region_bits[size_t(ri)]) return;
    uint64_t base = 0, n = 0;
    if (!detail::block_copy(C, size_t(ri), e.warp, &base, &n) || base + n > rs.regions[size_t(ri)].n) return;
    const unsigned nbytes = (e.aux & trace::kRegionBytesMask) >> trace::kRegionBytesShift;
    const uint64_t end = std::min<uint64_t>(e.a + (nbytes ? 8 * std::min(nbytes, 8u) : 1), n);
    for (uint64_t i = e.a; i < end; ++i) {
      const detail::CellRS& x = rs.regions[size_t(ri)].get(base + i);
      const auto key = std::make_pair(size_t(ri), base + i);
      auto it = holders.find(key);
      if (x.owner == c) {  // set 0 -> 1 by this update
        if (it != holders.end()) critical_section(size_t(ri), base + i, it->second, e.time, c, false);
        holders[key] = Holder{e.warp, c, e.lane, e.time};
      } else if (x.value == 0 && it != holders.end()) {
        critical_section(size_t(ri), base + i, it->second, e.time, c, false);
        holders.erase(it);
      }
    }
  };
  tr.scan(L.first_event, L.end_event, [&](const Event& e, size_t index) {
    const uint32_t c = uint32_t(index - L.first_event);
    latest_time = std::max(latest_time, e.time);
    marks.acquire = marks.release = false;
    if (e.kind == K(EventKind::HostAccess)) {
      if (detail::apply(C, e, c, &rs, &cloned, &marks))
        D.host.push_back(c);
      else
        ++skipped.host_malformed;
    } else if (!detail::apply(C, e, c, &rs, &cloned, &marks)) {
      ++skipped.events;
    }
    switch (static_cast<EventKind>(e.kind)) {
      case EventKind::WarpStep:
        if (e.warp < L.warps) {
          const uint32_t k = fill[e.warp]++;
          if (D.narrow_times())
            D.step_time32[k] = uint32_t(latest_time - L.first_time);  // (latest_time >= first_time)
          else
            D.step_time[k] = latest_time;
          D.step_cursor[k] = c;
          const uint32_t prev = k > D.step_off[e.warp] ? D.step_lanes[k - 1] : 0;
          D.step_lanes[k] = prev + popcount32(uint32_t(e.a));
        }
        break;
      case EventKind::Report: {
        D.marks[size_t(Mark::Report)].push_back(c);
        auto it = report_by_id.find(e.a);
        if (it != report_by_id.end()) {
          ReportInfo& R = I.reports[it->second];
          if (R.cursor == kNoCursor || R.launch != int(l)) {
            R.launch = int(l);
            R.cursor = c;
            R.time = e.time;
            if (R.line == 0) R.line = int64_t(e.b);
          }
        }
        break;
      }
      case EventKind::BarrierArrive: D.marks[size_t(Mark::BarrierArrive)].push_back(c); break;
      case EventKind::BarrierRelease: D.marks[size_t(Mark::BarrierRelease)].push_back(c); break;
      case EventKind::LaneExit: D.marks[size_t(Mark::LaneExit)].push_back(c); break;
      case EventKind::MemoryModel:
        switch (trace::MemoryModelKind(e.aux & trace::kMemoryModelKindMask)) {
          case trace::MemoryModelKind::StaleRead: D.marks[size_t(Mark::StaleRead)].push_back(c); break;
          case trace::MemoryModelKind::EarlyStore:
          case trace::MemoryModelKind::LateLoad: D.marks[size_t(Mark::Reordering)].push_back(c); break;
          case trace::MemoryModelKind::Visible: D.marks[size_t(Mark::Visible)].push_back(c); break;
          default: break;
        }
        break;
      case EventKind::RegionUpdate:
        if (e.aux & trace::kRegionSnapshot) break;  // the launch's starting contents
        shared_locks(e, c);
        D.marks[size_t(Mark::RegionUpdate)].push_back(c);
        if (marks.acquire) D.marks[size_t(Mark::Acquire)].push_back(c);
        if (marks.release) D.marks[size_t(Mark::Release)].push_back(c);
        break;
      default: break;
    }
    // A checkpoint after this event while the checkpoints' memory stays within the budget.
    const uint64_t applied = uint64_t(c) + 1;
    if (applied - last_cp >= kmin) {
      const size_t tb = detail::table_bytes(rs);
      if (double(cp_bytes + cloned + tb) <= budget * double(applied)) {
        cp_bytes += cloned + tb;
        cloned = 0;
        D.checkpoints.push_back(Checkpoint{applied, rs});
        last_cp = applied;
      }
    }
  });
  D.checkpoint_bytes = cp_bytes + cloned;
  for (auto& v : D.marks) v.shrink_to_fit();
  for (const auto& [key, h] : holders)  // still held when the launch's events ended
    critical_section(key.first, key.second, h, latest_time, uint32_t(L.steps - 1), true);
}

// The analysis' intervals of a launch as its spans (beside the critical sections pass 2 found), per
// warp in cursor order with their prefix maxima; the spin marks; where the viewer opens.
void add_spans(const LaunchInfo& L, LaunchData& D, std::vector<trace::Interval>& iv) {
  D.spans.reserve(iv.size());
  for (const trace::Interval& x : iv) {
    if (x.warp >= L.warps || x.first_event < L.first_event || x.last_event >= L.end_event) continue;
    Span s;
    s.kind = SpanKind(x.kind);
    s.begin = x.begin;
    s.end = std::max(x.end, x.begin);
    s.first = uint32_t(x.first_event - L.first_event);
    // Still open when the events ended: it lasts to the launch's last event (the analysis
    // stretches an open spin's end time but leaves last_event at its last full iteration).
    s.last = x.open_at_end ? uint32_t(L.steps - 1) : uint32_t(x.last_event - L.first_event);
    s.warp = x.warp;
    s.lanes = x.lanes;
    s.open_at_end = x.open_at_end;
    switch (x.kind) {
      case trace::IntervalKind::BarrierWait: s.info = x.barrier; break;
      case trace::IntervalKind::Spin:
        s.info = x.line;
        s.element = x.iterations;
        break;
      case trace::IntervalKind::CriticalSection:
        s.info = x.region;
        s.element = uint32_t(std::min<uint64_t>(x.element, 0xffffffffu));
        s.lane = x.lane;
        break;
    }
    D.spans.push_back(s);
  }
  std::vector<trace::Interval>().swap(iv);
  std::sort(D.spans.begin(), D.spans.end(), [](const Span& a, const Span& b) {
    if (a.warp != b.warp) return a.warp < b.warp;
    if (a.first != b.first) return a.first < b.first;
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.kind < b.kind;
  });
  D.spans.shrink_to_fit();
  if (L.time_backsteps > 0) {
    // spans_in searches begins in cursor order: keep them sorted as on an undamaged trace
    uint32_t w = kNoWarp;
    uint64_t b = 0;
    for (Span& s : D.spans) {
      if (s.warp != w) w = s.warp, b = 0;
      b = s.begin = std::max(s.begin, b);
      s.end = std::max(s.end, s.begin);
    }
  }
  D.span_off.assign(size_t(L.warps) + 1, 0);
  for (const Span& s : D.spans) ++D.span_off[s.warp + 1];
  for (uint32_t w = 0; w < L.warps; ++w) D.span_off[w + 1] += D.span_off[w];
  D.span_max_last.resize(D.spans.size());
  D.span_max_end.resize(D.spans.size());
  for (uint32_t w = 0; w < L.warps; ++w) {
    uint32_t ml = 0;
    uint64_t me = 0;
    for (uint32_t i = D.span_off[w]; i < D.span_off[w + 1]; ++i) {
      ml = std::max(ml, D.spans[i].last);
      me = std::max(me, D.spans[i].end);
      D.span_max_last[i] = ml;
      D.span_max_end[i] = me;
    }
  }
  std::vector<uint32_t>& spin_starts = D.marks[size_t(Mark::SpinStart)];
  for (const Span& s : D.spans)
    if (s.kind == SpanKind::Spin) spin_starts.push_back(s.first);
  std::sort(spin_starts.begin(), spin_starts.end());
  spin_starts.erase(std::unique(spin_starts.begin(), spin_starts.end()), spin_starts.end());
  spin_starts.shrink_to_fit();

  // Where the viewer opens.
  const auto& rep = D.marks[size_t(Mark::Report)];
  const auto& rel = D.marks[size_t(Mark::BarrierRelease)];
  const auto& acq = D.marks[size_t(Mark::Acquire)];
  if (!rep.empty())
    D.first_interesting = rep.front();
  else if (!rel.empty() || !acq.empty())
    D.first_interesting = std::min(rel.empty() ? ~0u : rel.front(), acq.empty() ? ~0u : acq.front());
  else
    D.first_interesting = 0;
}

// Each report in its launch's list, in cursor order (a report with no Report event: the launch its
// chunk names); its parties' warps as Event::warp numbers them.
void assign_reports(Model::Impl& I) {
  const size_t nl = I.launches.size();
  for (size_t r = 0; r < I.reports.size(); ++r) {
    ReportInfo& R = I.reports[r];
    if (R.launch < 0) {
      // No Report event: the chunk's "launch" names the launch number.
      uint64_t n = 0;
      if (ju64(R.json, "launch", &n))
        for (const LaunchInfo& L : I.launches)
          if (L.launch == n) {
            R.launch = L.index;
            break;
          }
    }
    if (R.launch >= 0 && size_t(R.launch) < nl) I.data[size_t(R.launch)].reports.push_back(uint32_t(r));
    // A party's "warp" is written as the warp within its block: the viewer wants Event::warp.
    if (R.launch >= 0 && size_t(R.launch) < nl) {
      const uint64_t wpb = I.launches[size_t(R.launch)].warps_per_block;
      for (ReportParty& p : R.parties)
        if (wpb && p.block >= 0 && p.warp >= 0 && uint64_t(p.warp) < wpb) p.warp = p.block * int64_t(wpb) + p.warp;
    }
  }
  for (LaunchData& D : I.data)
    std::stable_sort(D.reports.begin(), D.reports.end(),
                     [&](uint32_t a, uint32_t b) { return I.reports[a].cursor < I.reports[b].cursor; });
}

}  // namespace

std::unique_ptr<Model> Model::open(const std::string& path, std::string* error, const ModelOptions& opt) {
  std::string dummy;
  if (!error) error = &dummy;
  try {
    std::unique_ptr<trace::Trace> t = trace::load(path, error);
    if (!t) return nullptr;
    std::unique_ptr<Model> m(new Model);
    Impl& I = *m->impl_;
    Warnings warnings = t->warnings;
    I.header = parse_header(*t);

    // The derived intervals, computed on another core while this one replays.
    const size_t nl = t->launches.size();
    std::vector<std::vector<trace::Interval>> intervals(nl);
    std::exception_ptr analysis_error;
    const trace::Trace* tp = t.get();
    auto analyze_all = [&]() {
      try {
        for (size_t l = 0; l < nl; ++l) intervals[l] = trace::analyze_launch(*tp, int(l), opt.analysis);
      } catch (...) {
        analysis_error = std::current_exception();
      }
    };
    struct Joiner {  // joins the analysis thread on every way out of this function
      std::thread t;
      ~Joiner() {
        if (t.joinable()) t.join();
      }
    } analyzer;
    bool threaded = true;
    try {
      analyzer.t = std::thread(analyze_all);
    } catch (...) {
      threaded = false;
    }

    load_regions(*t, I, warnings);
    const std::unordered_map<uint64_t, uint32_t> report_by_id = load_reports(*t, I);
    std::unordered_map<uint64_t, int> module_by_id;
    I.launches.resize(nl);
    for (size_t l = 0; l < nl; ++l) load_launch(t->launches[l], l, I, module_by_id, warnings);
    if (t->launches.empty() && t->event_count() > 0)
      warnings.push_back(fmt::format("{} events but no Kernel chunk: nothing to show", t->event_count()));
    if (!t->launches.empty() && t->launches.front().first_event > 0)
      warnings.push_back(
          fmt::format("{} events before the first Kernel chunk are not shown", t->launches.front().first_event));

    I.zero = std::make_shared<detail::Zero>();
    I.data.resize(nl);
    I.trace = std::move(t);
    Skipped skipped;
    for (size_t l = 0; l < nl; ++l) {
      LaunchInfo& L = I.launches[l];
      if (L.steps >= 0xffffffffull) {
        warnings.push_back(fmt::format("launch {} has {} events; only the first 4294967294 are shown", l, L.steps));
        L.end_event = L.first_event + 0xfffffffeull;
        L.steps = 0xfffffffeull;
      }
      count_steps(*I.trace, l, L, I.data[l], warnings);
      launch_context(I, l, L, I.data[l].ctx, warnings);
      replay_launch(I, l, opt, report_by_id, skipped);
    }
    if (skipped.host_malformed)
      warnings.push_back(
          fmt::format("{} host access event(s) (HostAccess) are not a host read or write of 1 to 8 bytes to "
                      "global or host-mapped memory; they were skipped",
                      skipped.host_malformed));
    if (skipped.events)
      warnings.push_back(
          fmt::format("{} events name a warp, block or region element the launch does not have; "
                      "they were skipped",
                      skipped.events));

    if (threaded)
      analyzer.t.join();
    else
      analyze_all();
    if (analysis_error) std::rethrow_exception(analysis_error);
    for (size_t l = 0; l < nl; ++l) add_spans(I.launches[l], I.data[l], intervals[l]);
    assign_reports(I);

    for (size_t i = 0; i < warnings.size(); ++i) {
      if (i) I.warning += '\n';
      I.warning += warnings[i];
    }
    return m;
  } catch (const std::bad_alloc&) {
    *error = path + ": not enough memory to open the trace";
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
  }
  return nullptr;
}

// ---- plain accessors -----------------------------------------------------------------------------

const std::string& Model::path() const { return impl_->trace->path; }
const HeaderInfo& Model::header() const { return impl_->header; }
bool Model::complete() const { return impl_->trace->complete; }
const std::string& Model::warning() const { return impl_->warning; }
uint64_t Model::total_events() const { return impl_->trace->event_count(); }
const trace::Trace& Model::trace() const { return *impl_->trace; }
const std::vector<LaunchInfo>& Model::launches() const { return impl_->launches; }
const std::vector<RegionInfo>& Model::regions() const { return impl_->regions; }
const std::vector<ReportInfo>& Model::reports() const { return impl_->reports; }
const std::vector<SourceModule>& Model::modules() const { return impl_->modules; }

static bool valid_launch(const Model::Impl& I, int launch) { return launch >= 0 && size_t(launch) < I.launches.size(); }

const SourceModule* Model::module_of(int launch) const {
  if (!valid_launch(*impl_, launch)) return nullptr;
  const int m = impl_->launches[size_t(launch)].module;
  return m >= 0 ? &impl_->modules[size_t(m)] : nullptr;
}

const std::string& Model::file_path(int launch, uint32_t file_id) const {
  const SourceModule* m = module_of(launch);
  return m && file_id < m->files.size() ? m->files[file_id] : kEmpty;
}

const SourceFunction* Model::function(int launch, uint32_t function_id) const {
  const SourceModule* m = module_of(launch);
  return m && function_id < m->functions.size() ? &m->functions[function_id] : nullptr;
}

const std::vector<uint32_t>& Model::launch_reports(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].reports : kNoIndices;
}

const Event& Model::event_at(int launch, uint64_t cursor) const {
  if (!valid_launch(*impl_, launch)) return kNoEvent;
  const LaunchInfo& L = impl_->launches[size_t(launch)];
  if (cursor >= L.steps) return kNoEvent;
  return impl_->ev(L, cursor);
}

uint64_t Model::time_of(int launch, uint64_t cursor) const { return event_at(launch, cursor).time; }

uint64_t Model::cursor_at_time(int launch, uint64_t t) const {
  if (!valid_launch(*impl_, launch)) return 0;
  const LaunchInfo& L = impl_->launches[size_t(launch)];
  if (L.steps == 0) return 0;
  // first cursor whose time is > t, minus one
  uint64_t lo = 0, hi = L.steps;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (impl_->ev(L, mid).time <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? 0 : lo - 1;
}

size_t Model::checkpoint_count(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].checkpoints.size() : 0;
}

size_t Model::memory_bytes() const {
  const Impl& I = *impl_;
  size_t b = sizeof(Impl) + I.trace->index_bytes();
  for (const LaunchData& D : I.data) {
    b += sizeof(LaunchData);
    b += D.step_off.capacity() * 4 + D.step_time32.capacity() * 4 + D.step_time.capacity() * 8 +
         D.step_cursor.capacity() * 4 + D.step_lanes.capacity() * 4;
    for (const auto& m : D.marks) b += m.capacity() * 4;
    b += D.spans.capacity() * sizeof(Span) + D.span_off.capacity() * 4 + D.span_max_last.capacity() * 4 +
         D.span_max_end.capacity() * 8;
    b += D.checkpoints.capacity() * sizeof(Checkpoint) + D.checkpoint_bytes;
    b += D.reports.capacity() * 4 + D.active_warps.capacity() * 4;
  }
  return b;
}

// ---- lane states ---------------------------------------------------------------------------------

namespace {

// Lanes of warp w inside a spin (first <= c <= last) and lanes holding a lock bit at cursor c.
void span_lanes(const LaunchData& D, uint32_t w, uint64_t c, uint32_t* spin, uint32_t* crit) {
  *spin = *crit = 0;
  if (w + 1 >= D.span_off.size()) return;
  const uint32_t s = D.span_off[w], e = D.span_off[w + 1];
  // last span (within the warp) with first <= c
  auto it = std::upper_bound(D.spans.begin() + s, D.spans.begin() + e, c,
                             [](uint64_t c, const Span& x) { return c < x.first; });
  for (size_t i = size_t(it - D.spans.begin()); i > s; --i) {
    const size_t k = i - 1;
    if (D.span_max_last[k] < c) break;
    const Span& x = D.spans[k];
    if (x.kind == SpanKind::Spin) {
      if (x.first <= c && c <= x.last) *spin |= x.lanes;
    } else if (x.kind == SpanKind::CriticalSection) {
      if (x.first <= c && (c < x.last || x.open_at_end) && x.lane < 32) *crit |= 1u << x.lane;
    }
  }
}

void build_view(const Model::Impl& I, int launch, const ReplayState& rs, uint64_t cursor, State* out,
                const StateOptions& opt) {
  const LaunchInfo& L = I.launches[size_t(launch)];
  const LaunchData& D = I.data[size_t(launch)];
  out->launch = launch;
  out->cursor = L.steps ? cursor : kNoCursor;
  out->event = L.steps ? I.ev(L, cursor) : Event{};
  out->time = out->event.time;
  // The host row: its accesses up to the cursor.
  {
    const auto it = std::upper_bound(D.host.begin(), D.host.end(), L.steps ? cursor : 0);
    out->host_accesses = L.steps ? uint64_t(it - D.host.begin()) : 0;
    out->last_host_cursor = out->host_accesses ? uint64_t(*(it - 1)) : kNoCursor;
  }
  const uint64_t c = cursor;
  const bool any = L.steps > 0;

  const uint32_t first = std::min(opt.first_warp, L.warps);
  const uint32_t count = uint32_t(std::min<uint64_t>(opt.warp_count, uint64_t(L.warps) - first));
  out->first_warp = first;
  out->warps.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t w = first + i;
    WarpView& v = out->warps[i];
    const detail::WarpRS& r = rs.warps.get(w);
    v.warp = w;
    v.block = uint32_t(block_of_warp(w, L.warps_per_block));
    v.warp_in_block = w % std::max<uint32_t>(L.warps_per_block, 1);
    const uint64_t lane0 = uint64_t(v.warp_in_block) * 32;
    const uint64_t tpb = L.threads_per_block;
    v.exists = tpb >= lane0 + 32 ? 0xffffffffu : tpb > lane0 ? (1u << (tpb - lane0)) - 1 : 0u;
    v.exited = r.exited;
    v.at_barrier = r.at_barrier & ~r.exited;
    v.barrier = r.barrier;
    // The current instruction: the warp's last WarpStep up to the cursor (the simulator records a
    // step before the memory, region, barrier and exit events of its instruction).
    const uint32_t step = r.last_step;
    v.has_step = step != detail::kNone;
    if (v.has_step) {
      const Event& s = I.ev(L, step);
      v.last_mask = uint32_t(s.a);
      v.pc = uint32_t(s.a >> 32);
      v.line = uint32_t(s.b);
      v.function = uint32_t(s.b >> 32) & 0xffffu;
      v.file = uint32_t(s.b >> 48);
      v.instr_class = s.aux;
      v.last_step_time = s.time;
      v.last_step_cursor = step;
    } else {
      v.last_mask = 0;
      v.pc = v.line = v.function = v.file = 0;
      v.instr_class = 0;
      v.last_step_time = 0;
      v.last_step_cursor = kNoCursor;
    }
    v.last_event_cursor = r.last_event != detail::kNone ? r.last_event : kNoCursor;
    const uint32_t started = r.started;
    v.started = started;
    uint32_t spin = 0, crit = 0;
    if (any) span_lanes(D, w, c, &spin, &crit);
    v.spinning = spin & started & ~r.exited & ~v.at_barrier & ~crit;
    v.critical = crit & started & ~r.exited & ~v.at_barrier;
    v.stale = r.stale & started & ~r.exited & ~v.at_barrier & ~crit;
    for (int lane = 0; lane < 32; ++lane) {
      const uint32_t bit = 1u << lane;
      LaneState st;
      if (r.exited & bit)
        st = LaneState::Exited;
      else if (!(started & bit))
        st = LaneState::Inactive;
      else if (r.at_barrier & bit)
        st = LaneState::AtBarrier;
      else if (crit & bit)
        st = LaneState::InCritical;
      else if (r.stale & bit)
        st = LaneState::StaleRead;
      else if (spin & bit)
        st = LaneState::Spinning;
      else if (v.last_mask & bit)
        st = LaneState::Active;
      else
        st = LaneState::MaskedOff;
      v.lanes[lane] = st;
    }
  }

  if (!opt.regions) {
    out->regions.clear();
    return;
  }
  out->regions.resize(I.regions.size());
  const LaunchCtx& C = I.data[size_t(launch)].ctx;
  for (size_t r = 0; r < I.regions.size(); ++r) {
    RegionView& rv = out->regions[r];
    rv.region = int(r);
    uint64_t n = r < rs.regions.size() ? rs.regions[r].n : 0;
    uint64_t base = 0;
    rv.block = -1;
    if (I.regions[r].shared) {  // the chosen block's copy
      const uint64_t per = r < C.region_block_cells.size() ? C.region_block_cells[r] : 0;
      const uint64_t b = C.blocks ? std::min<uint64_t>(opt.block, C.blocks - 1) : 0;
      rv.block = int64_t(b);
      base = b * per;
      n = per && base + per <= n ? per : 0;
    }
    rv.cells.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      const detail::CellRS& x = rs.regions[r].get(base + i);
      CellView& cv = rv.cells[i];
      cv.value = x.value;
      if (x.writer != detail::kNone) {
        const Event& e = I.ev(L, x.writer);
        cv.writer_cursor = x.writer;
        cv.writer_time = e.time;
        cv.writer_host = e.kind == K(EventKind::HostAccess);
        cv.writer_warp = cv.writer_host ? kNoWarp : e.warp;
        cv.writer_lane = cv.writer_host ? kNoLane : e.lane;
      } else {
        cv.writer_host = false;
        cv.writer_cursor = kNoCursor;
        cv.writer_time = 0;
        cv.writer_warp = kNoWarp;
        cv.writer_lane = kNoLane;
      }
      if (x.owner != detail::kNone) {
        const Event& e = I.ev(L, x.owner);
        cv.owner_cursor = x.owner;
        cv.owner_warp = e.warp;
        cv.owner_lane = e.lane;
      } else {
        cv.owner_cursor = kNoCursor;
        cv.owner_warp = kNoWarp;
        cv.owner_lane = kNoLane;
      }
      cv.buffered_cursor = x.buffered != detail::kNone ? x.buffered : kNoCursor;
      if (x.completion != detail::kNone) {
        cv.completion_cursor = x.completion;
        cv.completion_time = x.completion == x.writer ? cv.writer_time : I.ev(L, x.completion).time;
      } else {
        cv.completion_cursor = kNoCursor;
        cv.completion_time = 0;
      }
    }
  }
}

// The replay state after events 0..cursor: from the last checkpoint at or before it.
void restore(const Model::Impl& I, const LaunchData& D, uint64_t applied, ReplayState* rs) {
  auto it = std::upper_bound(D.checkpoints.begin(), D.checkpoints.end(), applied,
                             [](uint64_t a, const Checkpoint& c) { return a < c.applied; });
  const Checkpoint& cp = *(it - 1);  // checkpoints[0] has applied == 0
  *rs = cp.state;
}

void replay(const Model::Impl& I, int launch, ReplayState* rs, uint64_t target_applied) {
  const LaunchInfo& L = I.launches[size_t(launch)];
  const LaunchData& D = I.data[size_t(launch)];
  size_t cloned = 0;
  const uint64_t from = rs->applied;
  I.trace->visit(L.first_event + from, L.first_event + target_applied, [&](const Event& e, size_t index) {
    detail::apply(D.ctx, e, uint32_t(index - L.first_event), rs, &cloned, nullptr);
  });
  rs->applied = std::max(from, target_applied);
}

}  // namespace

void Model::state_at(int launch, uint64_t cursor, State* out, const StateOptions& opt) const {
  if (!valid_launch(*impl_, launch)) {
    *out = State{};
    return;
  }
  const LaunchInfo& L = impl_->launches[size_t(launch)];
  const LaunchData& D = impl_->data[size_t(launch)];
  if (L.steps == 0)
    cursor = 0;
  else if (cursor >= L.steps)
    cursor = L.steps - 1;
  const uint64_t applied = L.steps ? cursor + 1 : 0;
  ReplayState rs;
  restore(*impl_, D, applied, &rs);
  replay(*impl_, launch, &rs, applied);
  build_view(*impl_, launch, rs, cursor, out, opt);
}

State Model::state_at(int launch, uint64_t cursor, const StateOptions& opt) const {
  State s;
  state_at(launch, cursor, &s, opt);
  return s;
}

// ---- navigation ----------------------------------------------------------------------------------

namespace {

bool mark_matches(const Model::Impl& I, const LaunchInfo& L, Mark m, uint64_t c, uint32_t warp) {
  if (warp == kNoWarp) return true;
  const Event& e = I.ev(L, c);
  if (m == Mark::BarrierRelease) return e.b == block_of_warp(warp, L.warps_per_block);
  return e.warp == warp;
}

}  // namespace

uint64_t Model::next(int launch, uint64_t cursor, Mark m, uint32_t warp) const {
  if (!valid_launch(*impl_, launch)) return kNoCursor;
  const Impl& I = *impl_;
  const LaunchInfo& L = I.launches[size_t(launch)];
  const LaunchData& D = I.data[size_t(launch)];
  const uint64_t from = cursor == kNoCursor ? 0 : cursor + 1;  // first candidate
  if (from >= L.steps) return kNoCursor;
  if (m == Mark::WarpStep) {
    if (warp != kNoWarp) {
      if (warp >= L.warps) return kNoCursor;
      auto b = D.step_cursor.begin() + D.step_off[warp], e = D.step_cursor.begin() + D.step_off[warp + 1];
      auto it = std::lower_bound(b, e, from);
      return it == e ? kNoCursor : *it;
    }
    const auto& chunks = I.trace->chunks();
    for (size_t ci = I.trace->chunk_of(L.first_event + from); ci < chunks.size(); ++ci) {
      const trace::EventChunk& ch = chunks[ci];
      if (ch.first >= L.end_event) break;
      const size_t lo = std::max<size_t>(L.first_event + from, ch.first) - ch.first;
      const size_t hi = std::min<size_t>(L.end_event, ch.first + ch.count) - ch.first;
      for (size_t k = lo; k < hi; ++k)
        if (ch.events[k].kind == K(EventKind::WarpStep)) return ch.first + k - L.first_event;
    }
    return kNoCursor;
  }
  const std::vector<uint32_t>& v = D.marks[size_t(m)];
  for (auto it = std::lower_bound(v.begin(), v.end(), from); it != v.end(); ++it)
    if (mark_matches(I, L, m, *it, warp)) return *it;
  return kNoCursor;
}

uint64_t Model::prev(int launch, uint64_t cursor, Mark m, uint32_t warp) const {
  if (!valid_launch(*impl_, launch)) return kNoCursor;
  const Impl& I = *impl_;
  const LaunchInfo& L = I.launches[size_t(launch)];
  const LaunchData& D = I.data[size_t(launch)];
  if (cursor == kNoCursor || cursor == 0 || L.steps == 0) return kNoCursor;
  const uint64_t below = std::min<uint64_t>(cursor, L.steps);  // candidates < below
  if (m == Mark::WarpStep) {
    if (warp != kNoWarp) {
      if (warp >= L.warps) return kNoCursor;
      auto b = D.step_cursor.begin() + D.step_off[warp], e = D.step_cursor.begin() + D.step_off[warp + 1];
      auto it = std::lower_bound(b, e, below);
      return it == b ? kNoCursor : *(it - 1);
    }
    for (uint64_t c = below; c > 0; --c)
      if (I.ev(L, c - 1).kind == K(EventKind::WarpStep)) return c - 1;
    return kNoCursor;
  }
  const std::vector<uint32_t>& v = D.marks[size_t(m)];
  for (auto it = std::lower_bound(v.begin(), v.end(), below); it != v.begin();) {
    --it;
    if (mark_matches(I, L, m, *it, warp)) return *it;
  }
  return kNoCursor;
}

uint64_t Model::first_interesting(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].first_interesting : 0;
}

// ---- region peaks --------------------------------------------------------------------------------

uint64_t Model::peak(int launch, const std::vector<int>& regions, PeakMeasure how, uint64_t block) const {
  if (!valid_launch(*impl_, launch)) return kNoCursor;
  const Impl& I = *impl_;
  const LaunchInfo& L = I.launches[size_t(launch)];
  const LaunchData& D = I.data[size_t(launch)];
  std::vector<bool> wanted(I.regions.size(), false);
  for (int r : regions)
    if (r >= 0 && size_t(r) < I.regions.size()) wanted[size_t(r)] = true;
  const LaunchCtx& C = D.ctx;
  ReplayState rs = D.checkpoints.front().state;  // the state before the launch's first event
  size_t cloned = 0;
  auto weight = [&](uint64_t v) -> uint64_t { return how == PeakMeasure::NonZero ? (v != 0) : v; };
  // Every cell's weight changes only through RegionUpdate and HostAccess events: keep a running total.
  unsigned __int128 total = 0, best = 0;
  uint64_t best_cursor = kNoCursor;
  I.trace->scan(L.first_event, L.end_event, [&](const Event& e, size_t index) {
    if (e.kind == K(EventKind::HostAccess)) {  // a host write changes the cells it covers
      size_t r = 0;
      uint64_t lo = 0, hi = 0;
      if (!detail::host_access_ok(e) || !detail::host_cells_at(C, e, &r, &lo, &hi) || !wanted[r]) return;
      const detail::Cow<detail::CellRS>& cells = rs.regions[r];
      for (uint64_t i = lo; i < hi; ++i) total -= weight(cells.get(i).value);
      detail::apply(C, e, uint32_t(index - L.first_event), &rs, &cloned, nullptr);
      for (uint64_t i = lo; i < hi; ++i) total += weight(cells.get(i).value);
      if (total > best) {
        best = total;
        best_cursor = index - L.first_event;
      }
      return;
    }
    if (e.kind != K(EventKind::RegionUpdate)) return;
    const int ri = C.region_index[e.aux & trace::kRegionIdMask];
    if (ri < 0 || !wanted[size_t(ri)]) return;
    const detail::Cow<detail::CellRS>& cells = rs.regions[size_t(ri)];
    const unsigned nbytes = (e.aux & trace::kRegionBytesMask) >> trace::kRegionBytesShift;
    uint64_t base = 0, n = cells.n;
    if (C.region_shared[size_t(ri)] && !(e.aux & trace::kRegionSnapshot)) {
      if (!detail::block_copy(C, size_t(ri), e.warp, &base, &n) || base + n > cells.n) return;
      if (block != kAllBlocks && block_of_warp(e.warp, C.warps_per_block) != block) return;
    }
    const uint64_t lo = base + e.a;
    const uint64_t hi =
        std::min<uint64_t>(base + n, nbytes && C.region_bits[size_t(ri)] ? lo + 8ull * std::min(nbytes, 8u) : lo + 1);
    for (uint64_t i = lo; i < hi; ++i) total -= weight(cells.get(i).value);
    detail::apply(C, e, uint32_t(index - L.first_event), &rs, &cloned, nullptr);
    for (uint64_t i = lo; i < hi; ++i) total += weight(cells.get(i).value);
    if (total > best) {
      best = total;
      best_cursor = index - L.first_event;
    }
  });
  return best_cursor;
}

// ---- timeline ------------------------------------------------------------------------------------

const std::vector<Span>& Model::spans(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].spans : kNoSpans;
}

void Model::spans_in(int launch, uint32_t warp, uint64_t t0, uint64_t t1, std::vector<uint32_t>* out) const {
  out->clear();
  if (!valid_launch(*impl_, launch)) return;
  const LaunchData& D = impl_->data[size_t(launch)];
  if (size_t(warp) + 1 >= D.span_off.size() || t1 < t0) return;
  const uint32_t s = D.span_off[warp], e = D.span_off[warp + 1];
  // spans with begin <= t1 (begins grow with first cursors), scanning back while some earlier
  // span may still reach t0
  auto it = std::upper_bound(D.spans.begin() + s, D.spans.begin() + e, t1,
                             [](uint64_t t, const Span& x) { return t < x.begin; });
  size_t hi = size_t(it - D.spans.begin());
  size_t lo = hi;
  while (lo > s && D.span_max_end[lo - 1] >= t0) --lo;
  for (size_t i = lo; i < hi; ++i)
    if (D.spans[i].end >= t0 && D.spans[i].begin <= t1) out->push_back(uint32_t(i));
}

namespace {

// Calls f(times, base) with launch L's step times (D): base + times[k] is step k's time.
template <class F>
decltype(auto) with_step_times(const LaunchInfo& L, const LaunchData& D, F&& f) {
  if (D.narrow_times()) return f(D.step_time32.data(), L.first_time);
  return f(D.step_time.data(), uint64_t(0));
}

// The first k in [b, e) whose time base + times[k] is at least t.
template <class T>
size_t first_at_or_after(const T* times, uint64_t base, size_t b, size_t e, uint64_t t) {
  return size_t(std::lower_bound(times + b, times + e, t, [base](T x, uint64_t v) { return base + x < v; }) - times);
}

template <class T>
void activity_of(const LaunchData& D, const T* times, uint64_t base, uint32_t s, uint32_t e, uint64_t t0, uint64_t t1,
                 uint32_t buckets, std::vector<ActivityBucket>* out) {
  auto time = [&](size_t k) { return base + times[k]; };
  auto lanes_before = [&](size_t k) -> uint32_t { return k > s ? D.step_lanes[k - 1] : 0u; };
  const unsigned __int128 span = t1 - t0;
  size_t k0 = first_at_or_after(times, base, s, e, t0);
  const size_t kend = first_at_or_after(times, base, k0, e, t1);
  if (kend - k0 <= 8 * size_t(buckets)) {
    // few steps in the window: visit them
    for (size_t k = k0; k < kend; ++k) {
      const uint64_t tk = time(k);
      // the bucket b with t0 + span*b/B <= t < t0 + span*(b+1)/B
      uint64_t b = uint64_t((unsigned __int128)(tk - t0) * buckets / span);
      while (b + 1 < buckets && tk >= t0 + uint64_t(span * (b + 1) / buckets)) ++b;
      while (b > 0 && tk < t0 + uint64_t(span * b / buckets)) --b;
      ActivityBucket& x = (*out)[size_t(std::min<uint64_t>(b, buckets - 1))];  // never past the end
      ++x.steps;
      x.lanes += D.step_lanes[k] - lanes_before(k);
    }
    return;
  }
  for (uint32_t b = 0; b < buckets; ++b) {
    const uint64_t hi_t = t0 + uint64_t(span * (b + 1) / buckets);
    // galloping search from k0 for the first step at or after hi_t
    size_t step = 1, lo = k0, hi = k0;
    while (hi < e && time(hi) < hi_t) {
      lo = hi;
      hi = std::min<size_t>(e, hi + step);
      step *= 2;
    }
    const size_t k1 = first_at_or_after(times, base, lo, hi, hi_t);
    (*out)[b].steps = uint32_t(k1 - k0);
    (*out)[b].lanes = lanes_before(k1) - lanes_before(k0);
    k0 = k1;
  }
}

}  // namespace

void Model::activity(int launch, uint32_t warp, uint64_t t0, uint64_t t1, uint32_t buckets,
                     std::vector<ActivityBucket>* out) const {
  out->assign(buckets, ActivityBucket{});
  if (!valid_launch(*impl_, launch) || buckets == 0 || t1 <= t0) return;
  const LaunchData& D = impl_->data[size_t(launch)];
  if (size_t(warp) + 1 >= D.step_off.size()) return;
  const uint32_t s = D.step_off[warp], e = D.step_off[warp + 1];
  if (s == e) return;
  with_step_times(impl_->launches[size_t(launch)], D,
                  [&](const auto* times, uint64_t base) { activity_of(D, times, base, s, e, t0, t1, buckets, out); });
}

uint64_t Model::step_count(int launch, uint32_t warp, uint64_t t0, uint64_t t1) const {
  if (!valid_launch(*impl_, launch) || t1 <= t0) return 0;
  const LaunchData& D = impl_->data[size_t(launch)];
  if (size_t(warp) + 1 >= D.step_off.size()) return 0;
  const size_t b = D.step_off[warp], e = D.step_off[warp + 1];
  return with_step_times(impl_->launches[size_t(launch)], D, [&](const auto* times, uint64_t base) {
    return uint64_t(first_at_or_after(times, base, b, e, t1) - first_at_or_after(times, base, b, e, t0));
  });
}

const std::vector<uint32_t>& Model::active_warps(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].active_warps : kNoIndices;
}

const std::vector<uint32_t>& Model::host_accesses(int launch) const {
  return valid_launch(*impl_, launch) ? impl_->data[size_t(launch)].host : kNoIndices;
}

int Model::host_access_region(int launch, uint64_t cursor, uint64_t* cell) const {
  if (!valid_launch(*impl_, launch)) return -1;
  const LaunchInfo& L = impl_->launches[size_t(launch)];
  if (cursor >= L.steps) return -1;
  const Event& e = impl_->ev(L, cursor);
  size_t r = 0;
  uint64_t first = 0, last = 0;
  if (e.kind != K(EventKind::HostAccess) || !detail::host_access_ok(e) ||
      !detail::host_cells_at(impl_->data[size_t(launch)].ctx, e, &r, &first, &last))
    return -1;
  if (cell) *cell = first;
  return int(r);
}

// ---- Player --------------------------------------------------------------------------------------

struct Player::Impl {
  const Model::Impl* m = nullptr;
  int launch = -1;
  ReplayState rs;
  uint64_t cursor = kNoCursor;
};

Player::Player(const Model& m, int launch) : impl_(new Impl) {
  impl_->m = m.impl_.get();
  impl_->launch = valid_launch(*m.impl_, launch) ? launch : -1;
  if (impl_->launch >= 0) {
    impl_->rs = m.impl_->data[size_t(launch)].checkpoints.front().state;
  }
}
Player::~Player() = default;
Player::Player(Player&&) noexcept = default;
Player& Player::operator=(Player&&) noexcept = default;

int Player::launch() const { return impl_->launch; }
uint64_t Player::cursor() const { return impl_->cursor; }

void Player::seek(uint64_t cursor) {
  Impl& P = *impl_;
  if (P.launch < 0) return;
  const Model::Impl& I = *P.m;
  const LaunchInfo& L = I.launches[size_t(P.launch)];
  const LaunchData& D = I.data[size_t(P.launch)];
  if (L.steps == 0) {
    P.cursor = 0;
    return;
  }
  if (cursor >= L.steps) cursor = L.steps - 1;
  const uint64_t target = cursor + 1;
  // the checkpoint a fresh seek would start from
  auto it = std::upper_bound(D.checkpoints.begin(), D.checkpoints.end(), target,
                             [](uint64_t a, const Checkpoint& c) { return a < c.applied; });
  const uint64_t cp = (it - 1)->applied;
  if (!(P.rs.applied <= target && P.rs.applied >= cp)) P.rs = (it - 1)->state;
  replay(I, P.launch, &P.rs, target);
  P.cursor = cursor;
}

void Player::step(int64_t delta) {
  Impl& P = *impl_;
  if (P.launch < 0) return;
  const LaunchInfo& L = P.m->launches[size_t(P.launch)];
  if (L.steps == 0) return;
  const int64_t cur = P.cursor == kNoCursor ? -1 : int64_t(P.cursor);
  int64_t to = cur + delta;
  if (to < 0) to = 0;
  if (uint64_t(to) >= L.steps) to = int64_t(L.steps - 1);
  seek(uint64_t(to));
}

void Player::state(State* out, const StateOptions& opt) const {
  const Impl& P = *impl_;
  if (P.launch < 0) {
    *out = State{};
    return;
  }
  const LaunchInfo& L = P.m->launches[size_t(P.launch)];
  const uint64_t c = P.cursor == kNoCursor ? 0 : P.cursor;
  if (P.cursor == kNoCursor && L.steps) {
    ReplayState rs = P.rs;
    replay(*P.m, P.launch, &rs, 1);
    build_view(*P.m, P.launch, rs, 0, out, opt);
    return;
  }
  build_view(*P.m, P.launch, P.rs, c, out, opt);
}

// ---- sources -------------------------------------------------------------------------------------

const std::vector<std::string>* Model::source_lines(const std::string& path) const {
  std::lock_guard<std::mutex> lock(impl_->source_mu);
  auto it = impl_->sources.find(path);
  if (it != impl_->sources.end()) return it->second.get();
  std::unique_ptr<std::vector<std::string>> lines;
  std::ifstream in(path);
  if (in) {
    lines = std::make_unique<std::vector<std::string>>();
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines->push_back(std::move(line));
    }
    if (in.bad()) lines.reset();
  }
  const std::vector<std::string>* r = lines.get();
  impl_->sources.emplace(path, std::move(lines));
  return r;
}

}  // namespace synclab::viz
