// Derived intervals: barrier waits, spins, critical sections (see trace_analysis.h).
#include <synclab/trace_analysis.h>

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace synclab::trace {

namespace {

constexpr uint8_t K(EventKind k) { return static_cast<uint8_t>(k); }

std::pair<size_t, size_t> launch_range(const Trace& t, int launch) {
  if (launch < 0) return {0, t.launches.empty() ? t.event_count() : t.launches.front().first_event};
  if (size_t(launch) >= t.launches.size()) return {0, 0};
  const Launch& l = t.launches[size_t(launch)];
  return {l.first_event, l.end_event};
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// ---- spins ---------------------------------------------------------------------------------------

struct Run {
  uint64_t begin_time = 0, end_time = 0;
  size_t begin_event = 0, end_event = 0;
  uint64_t pc = 0, sig = 0;
  uint64_t branch_pc = 0;  // the highest pc an iteration jumped back from
  uint32_t func = 0;
  uint32_t line = 0, lanes = 0, iterations = 0, refs = 0;
  uint32_t warp = 0;
  bool open_at_end = false;
};

// Lanes that step together (one WarpStep's active mask) and their loop state.
struct Group {
  uint32_t mask = 0;
  uint64_t stamp = 0;  // the warp's step counter at this group's last step
  bool has_pc = false;
  uint64_t last_pc = 0;
  uint32_t last_func = 0;
  uint32_t last_line = 0;
  // the iteration in progress (valid once the group jumped backwards once)
  bool iter_valid = false;
  uint64_t iter_pc = 0, iter_begin_time = 0, iter_sig = 0;
  size_t iter_begin_event = 0;
  bool iter_clean = true, iter_read = false;
  int run = -1;  // index into the Spins::runs, -1: none
};

struct WarpState {
  std::vector<Group> groups;
  uint64_t lane_stamp[32] = {};
  uint64_t counter = 0;
  int cur = -1;  // group of the last WarpStep
  bool atomic64_pending = false;
};

class Spins {
 public:
  Spins(int launch, uint32_t min_iterations, std::vector<Interval>* out)
      : launch_(launch), min_(min_iterations), out_(out) {}

  void on_event(const Event& e, size_t index) {
    switch (static_cast<EventKind>(e.kind)) {
      case EventKind::WarpStep: step(e, index); break;
      case EventKind::MemAccess: {
        Group* g = current(e);
        if (!g) break;
        if (e.aux & kAuxWrite) {
          taint(*g);
        } else {
          g->iter_read = true;
          g->iter_sig += mix(e.a * 0x9e3779b97f4a7c15ull ^ (e.aux & 0x7f));
        }
        break;
      }
      case EventKind::Atomic: {
        Group* g = current(e);
        if (!g) break;
        g->iter_read = true;
        g->iter_sig += mix(e.a * 0x9e3779b97f4a7c15ull ^ 0x100 ^ (e.aux & 0x7f));
        WarpState& w = warp(e.warp);
        if (e.aux & kAux64) {
          w.atomic64_pending = true;  // decided by the AtomicWide record
        } else if ((e.b & 0xffffffffull) != (e.b >> 32)) {
          taint(*g);
        }
        break;
      }
      case EventKind::AtomicWide: {
        WarpState* w = find_warp(e.warp);
        if (!w || !w->atomic64_pending) break;
        w->atomic64_pending = false;
        Group* g = current(e);
        if (g && e.a != e.b) taint(*g);
        break;
      }
      case EventKind::BarrierArrive: {
        WarpState* w = find_warp(e.warp);
        if (!w) break;
        if (w->cur >= 0) taint(w->groups[size_t(w->cur)]);
        break;
      }
      default: break;
    }
    last_time_ = std::max(last_time_, e.time);
  }

  void finish() {
    // Groups whose lanes moved on first, then those still in their loop (stretched to the end).
    for (WarpState& w : warps_)
      for (Group& g : w.groups)
        if (!alive(w, g)) leave(g, false);
    for (WarpState& w : warps_)
      for (Group& g : w.groups) leave(g, true);
    for (size_t r = 0; r < runs_.size(); ++r)
      if (runs_[r].refs > 0) emit(runs_[r]);
  }

 private:
  // The group of the instruction event e belongs to: its warp's last WarpStep (the simulator
  // writes a step before its instruction's accesses), when that step's mask holds e's lane.
  Group* current(const Event& e) {
    WarpState* w = find_warp(e.warp);
    if (!w || w->cur < 0) return nullptr;
    Group& g = w->groups[size_t(w->cur)];
    if (e.lane != kAllLanes && e.lane < 32 && !((g.mask >> e.lane) & 1u)) return nullptr;
    return &g;
  }

  // The iteration in progress wrote or changed something: not idle, and the run (if any) ends
  // with the previous iteration.
  void taint(Group& g) {
    g.iter_clean = false;
    leave(g, false);
  }

  static bool alive(const WarpState& w, const Group& g) {
    for (uint32_t m = g.mask; m; m &= m - 1)
      if (w.lane_stamp[__builtin_ctz(m)] == g.stamp) return true;
    return false;
  }

  static bool owns_lanes(const WarpState& w, const Group& g, uint32_t lanes) {
    for (uint32_t m = lanes; m; m &= m - 1)
      if (w.lane_stamp[__builtin_ctz(m)] != g.stamp) return false;
    return true;
  }

  void step(const Event& e, size_t index) {
    WarpState& w = warp(e.warp);
    const uint32_t mask = uint32_t(e.a);
    const uint64_t pc = e.a >> 32;
    const uint32_t line = uint32_t(e.b);
    const uint32_t func = uint32_t(e.b >> 32) & 0xffffu;
    // The warp's last step was by the same lanes (the common case): they are that group's, and
    // their stamps stay as they are (no other group of the warp stepped since).
    const bool again = w.cur >= 0 && w.groups[size_t(w.cur)].mask == mask;
    int gi = again ? w.cur : -1;
    for (size_t i = 0; gi < 0 && i < w.groups.size(); ++i)
      if (w.groups[i].mask == mask) gi = int(i);
    if (!again && (gi < 0 || !owns_lanes(w, w.groups[size_t(gi)], mask))) {
      // A new group (or one whose lanes ran elsewhere since): lanes that split off a group they
      // all last stepped in carry on with its loop state; otherwise they start afresh.
      Group g;
      for (size_t i = 0; i < w.groups.size(); ++i) {
        const Group& p = w.groups[i];
        if (p.mask != mask && (p.mask & mask) == mask && owns_lanes(w, p, mask)) {
          g = p;
          if (g.run >= 0) ++runs_[size_t(g.run)].refs;
          break;
        }
      }
      g.mask = mask;
      if (gi >= 0) {
        leave(w.groups[size_t(gi)], false);
        w.groups[size_t(gi)] = g;
      } else {
        prune(w);
        w.groups.push_back(g);
        gi = int(w.groups.size() - 1);
      }
    }
    Group& g = w.groups[size_t(gi)];
    const bool same_func = g.has_pc && g.last_func == func;
    if (same_func && pc <= g.last_pc) {
      // A backward jump: the iteration in progress ends here, a new one starts.
      if (g.iter_valid) end_iteration(g, e, index);
      g.iter_valid = true;
      g.iter_pc = pc;
      g.iter_begin_time = e.time;
      g.iter_begin_event = index;
      g.iter_clean = true;
      g.iter_read = false;
      g.iter_sig = 0;
    } else if (g.run >= 0) {
      // Past the loop's branch (or into another function): the group left the loop.
      const Run& r = runs_[size_t(g.run)];
      if (func != r.func || pc > r.branch_pc) leave(g, false);
    }
    g.has_pc = true;
    g.last_pc = pc;
    g.last_func = func;
    g.last_line = line;
    if (!again) {
      g.stamp = ++w.counter;
      for (uint32_t m = mask; m; m &= m - 1) w.lane_stamp[__builtin_ctz(m)] = g.stamp;
    }
    w.cur = gi;
    w.atomic64_pending = false;
  }

  // Drops groups none of whose lanes still belong to them (keeping their runs accounted).
  void prune(WarpState& w) {
    if (w.groups.size() < 8) return;
    std::vector<Group> keep;
    int cur = -1;
    for (size_t i = 0; i < w.groups.size(); ++i) {
      Group& g = w.groups[i];
      if (alive(w, g)) {
        if (int(i) == w.cur) cur = int(keep.size());
        keep.push_back(g);
      } else {
        leave(g, false);
      }
    }
    w.groups.swap(keep);
    w.cur = cur;
  }

  void end_iteration(Group& g, const Event& e, size_t index) {
    const bool idle = g.iter_clean && g.iter_read;
    // The line the iteration jumped back from: the loop's branch.
    const uint32_t line = g.last_line;
    const uint64_t branch_pc = g.last_pc;
    if (!idle) {
      leave(g, false);
      return;
    }
    if (g.run >= 0) {
      Run& r = runs_[size_t(g.run)];
      if (r.pc == g.iter_pc && r.sig == g.iter_sig) {
        ++r.iterations;
        r.lanes |= g.mask;
        r.branch_pc = std::max(r.branch_pc, branch_pc);
        if (e.time >= r.end_time) {
          r.end_time = e.time;
          r.end_event = index;
        }
        return;
      }
      leave(g, false);
    }
    Run r;
    r.begin_time = g.iter_begin_time;
    r.begin_event = g.iter_begin_event;
    r.end_time = e.time;
    r.end_event = index;
    r.pc = g.iter_pc;
    r.sig = g.iter_sig;
    r.branch_pc = branch_pc;
    r.func = g.last_func;
    r.line = line;
    r.lanes = g.mask;
    r.iterations = 1;
    r.refs = 1;
    r.warp = e.warp;
    runs_.push_back(r);
    g.run = int(runs_.size() - 1);
  }

  // The group stops taking part in its run; the run is reported when no group is left in it.
  void leave(Group& g, bool at_end) {
    if (g.run < 0) return;
    Run& r = runs_[size_t(g.run)];
    g.run = -1;
    if (at_end) {
      // Still spinning when the events ended: stretch the run to the last event.
      r.open_at_end = true;
      if (last_time_ > r.end_time) r.end_time = last_time_;
    }
    if (r.refs > 0 && --r.refs == 0) emit(r);
  }

  void emit(Run& r) {
    r.refs = 0;
    if (r.iterations < min_) return;
    Interval iv;
    iv.kind = IntervalKind::Spin;
    iv.launch = launch_;
    iv.warp = r.warp;
    iv.begin = r.begin_time;
    iv.end = std::max(r.end_time, r.begin_time);
    iv.first_event = r.begin_event;
    iv.last_event = r.end_event;
    iv.open_at_end = r.open_at_end;
    iv.lanes = r.lanes;
    iv.line = r.line;
    iv.pc = r.pc;
    iv.iterations = r.iterations;
    out_->push_back(iv);
  }

  // The state of warp `id`, made when first asked for. Warp ids are dense in practice (block x
  // warps per block + warp): a table indexed by id finds them without hashing; larger ids (up to
  // the event format's 32 bits) go to a map.
  WarpState& warp(uint32_t id) {
    if (WarpState* w = find_warp(id)) return *w;
    warps_.emplace_back();
    WarpState* w = &warps_.back();
    if (id < kDenseWarps) {
      if (id >= dense_.size()) dense_.resize(size_t(id) + 1, nullptr);
      dense_[id] = w;
    } else {
      sparse_[id] = w;
    }
    return *w;
  }
  WarpState* find_warp(uint32_t id) const {
    if (id < kDenseWarps) return id < dense_.size() ? dense_[id] : nullptr;
    auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : it->second;
  }

  static constexpr uint32_t kDenseWarps = 1u << 20;  // (a table of at most 8 MiB)
  int launch_;
  uint32_t min_;
  std::vector<Interval>* out_;
  std::deque<WarpState> warps_;  // (a deque: its elements stay where they are as it grows)
  std::vector<WarpState*> dense_;
  std::unordered_map<uint32_t, WarpState*> sparse_;
  std::vector<Run> runs_;
  uint64_t last_time_ = 0;
};

// ---- barrier waits and critical sections -----------------------------------------------------

// A warp's lanes waiting at a barrier since `time` (event index `event`).
struct Waiting {
  uint32_t warp;
  uint64_t time;
  size_t event;
  uint32_t lanes;

  // The wait as an interval that ends at `end` (event `last`) with the release, or open.
  Interval close(int launch, uint64_t block, uint32_t barrier, uint64_t end, size_t last, bool open) const {
    Interval iv;
    iv.kind = IntervalKind::BarrierWait;
    iv.launch = launch;
    iv.warp = warp;
    iv.begin = time;
    iv.end = std::max(end, time);
    iv.first_event = event;
    iv.last_event = last;
    iv.open_at_end = open;
    iv.lanes = lanes;
    iv.block = block;
    iv.barrier = barrier;
    return iv;
  }
};

// The lane holding a lock cell since `time` (event index `event`).
struct Holder {
  uint32_t warp;
  uint8_t lane;
  uint64_t time;
  size_t event;

  // The critical section as an interval that ends at `end` (event `last`) with the release, or open.
  Interval close(int launch, uint64_t region, uint64_t element, uint64_t end, size_t last, bool open) const {
    Interval iv;
    iv.kind = IntervalKind::CriticalSection;
    iv.launch = launch;
    iv.warp = warp;
    iv.begin = time;
    iv.end = std::max(end, time);
    iv.first_event = event;
    iv.last_event = last;
    iv.open_at_end = open;
    iv.lanes = lane < 32 ? (1u << lane) : 0u;
    iv.lane = lane;
    iv.region = uint32_t(region);
    iv.element = element;
    return iv;
  }
};

}  // namespace

const char* interval_kind_name(IntervalKind k) {
  switch (k) {
    case IntervalKind::BarrierWait: return "barrier";
    case IntervalKind::Spin: return "spin";
    case IntervalKind::CriticalSection: return "critical";
  }
  return "unknown";
}

std::string interval_name(const Trace& t, const Interval& iv) {
  switch (iv.kind) {
    case IntervalKind::BarrierWait:
      return iv.barrier == 0 ? std::string("barrier wait") : fmt::format("barrier {} wait", iv.barrier);
    case IntervalKind::Spin: return fmt::format("spin at line {}", iv.line);
    case IntervalKind::CriticalSection: {
      std::string name = fmt::format("region {}", iv.region);
      if (const nlohmann::json* r = t.region_by_id(iv.region)) {
        auto n = r->find("name");
        if (n != r->end() && n->is_string()) name = n->get<std::string>();
      }
      return fmt::format("critical section {}[{}]", name, iv.element);
    }
  }
  return "interval";
}

std::vector<Interval> analyze_launch(const Trace& t, int launch, const AnalysisOptions& opt) {
  std::vector<Interval> out;
  const auto [begin, end] = launch_range(t, launch);
  if (begin >= end) return out;

  // Region ids whose updates are lock cells.
  std::unordered_set<uint64_t> lock_regions;
  for (const nlohmann::json& r : t.regions) {
    auto id = r.find("id");
    auto kind = r.find("kind");
    if (id == r.end() || !id->is_number_unsigned() || kind == r.end() || !kind->is_string()) continue;
    const std::string k = kind->get<std::string>();
    // Only lock bits are locks; flags are signals (often set once, never cleared).
    if (k == "lock-bits") lock_regions.insert(id->get<uint64_t>());
  }

  Spins spins(launch, opt.min_spin_iterations, &out);
  std::map<std::pair<uint64_t, uint32_t>, std::vector<Waiting>> waiting;    // (block, barrier id)
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, Holder>> held;  // region -> element
  uint64_t last_time = 0;
  size_t last_index = begin;

  t.scan(begin, end, [&](const Event& e, size_t index) {
    last_time = std::max(last_time, e.time);
    last_index = index;
    if (opt.spins) spins.on_event(e, index);
    switch (static_cast<EventKind>(e.kind)) {
      case EventKind::BarrierArrive: {
        if (!opt.barrier_waits) break;
        auto& list = waiting[{e.b, uint32_t(e.aux)}];
        auto it = std::find_if(list.begin(), list.end(), [&](const Waiting& w) { return w.warp == e.warp; });
        if (it == list.end())
          list.push_back(Waiting{e.warp, e.time, index, uint32_t(e.a)});
        else
          it->lanes |= uint32_t(e.a);
        break;
      }
      case EventKind::BarrierRelease: {
        if (!opt.barrier_waits) break;
        auto it = waiting.find({e.b, uint32_t(e.aux)});
        if (it == waiting.end()) break;
        for (const Waiting& w : it->second) out.push_back(w.close(launch, e.b, uint32_t(e.aux), e.time, index, false));
        waiting.erase(it);
        break;
      }
      case EventKind::RegionUpdate: {
        const uint64_t region = e.aux & kRegionIdMask;
        if (!opt.critical_sections || !lock_regions.count(region)) break;
        // A bit already set when the launch began has no holder in this launch.
        if (e.aux & kRegionSnapshot) break;
        auto& cells = held[region];
        auto update = [&](uint64_t element, bool set) {
          auto it = cells.find(element);
          if (set) {
            if (it == cells.end()) cells.emplace(element, Holder{e.warp, e.lane, e.time, index});
            return;
          }
          if (it == cells.end()) return;
          out.push_back(it->second.close(launch, region, element, e.time, index, false));
          cells.erase(it);
        };
        const unsigned nbytes = (e.aux & kRegionBytesMask) >> kRegionBytesShift;
        if (nbytes == 0) {
          update(e.a, e.b != 0);
        } else {
          // A write of whole bytes of a lock-bits region: a is its first bit, b the new bytes.
          for (unsigned bit = 0; bit < 8 * std::min(nbytes, 8u); ++bit) update(e.a + bit, (e.b >> bit) & 1u);
        }
        break;
      }
      default: break;
    }
  });

  // What is still open when the launch's events end.
  if (opt.spins) spins.finish();
  for (auto& [key, list] : waiting)
    for (const Waiting& w : list) out.push_back(w.close(launch, key.first, key.second, last_time, last_index, true));
  for (auto& [region, cells] : held)
    for (auto& [element, h] : cells) out.push_back(h.close(launch, region, element, last_time, last_index, true));
  std::sort(out.begin(), out.end(), [](const Interval& a, const Interval& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.warp != b.warp) return a.warp < b.warp;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.first_event != b.first_event) return a.first_event < b.first_event;
    if (a.region != b.region) return a.region < b.region;
    return a.element < b.element;
  });
  return out;
}

std::vector<Interval> analyze(const Trace& t, const AnalysisOptions& opt) {
  std::vector<Interval> all = analyze_launch(t, -1, opt);
  for (size_t l = 0; l < t.launches.size(); ++l) {
    std::vector<Interval> v = analyze_launch(t, int(l), opt);
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

LaunchStats launch_stats(const Trace& t, int launch) {
  LaunchStats s;
  const auto [begin, end] = launch_range(t, launch);
  std::unordered_set<uint32_t> warps;
  bool first = true;
  t.scan(begin, end, [&](const Event& e, size_t) {
    ++s.events;
    ++s.by_kind[e.kind < 16 ? e.kind : 0];
    if (first) {
      s.first_time = s.last_time = e.time;
      first = false;
    }
    s.first_time = std::min(s.first_time, e.time);
    s.last_time = std::max(s.last_time, e.time);
    switch (static_cast<EventKind>(e.kind)) {
      case EventKind::BarrierRelease: ++s.barrier_releases; break;
      case EventKind::Atomic:
        ++s.atomics;
        if (!(e.aux & kAux64) && (e.b & 0xffffffffull) != (e.b >> 32)) ++s.atomics_changed;
        break;
      case EventKind::AtomicWide:
        if (e.a != e.b) ++s.atomics_changed;
        break;
      case EventKind::MemAccess:
        if (e.aux & kAuxWrite) ++s.stores;
        break;
      case EventKind::HostAccess:
        if (host_access_writes(e))
          ++s.host_writes;
        else if (host_access_well_formed(e))
          ++s.host_reads;
        else
          ++s.host_malformed;
        break;
      case EventKind::KernelEnd: s.status = e.b; break;
      case EventKind::KernelBegin:
      case EventKind::Report: break;
      default: break;
    }
    if (e.kind != K(EventKind::KernelBegin) && e.kind != K(EventKind::KernelEnd) && e.kind != K(EventKind::Report) &&
        e.kind != K(EventKind::HostAccess))  // the host is no warp
      warps.insert(e.warp);
  });
  s.warps = warps.size();
  return s;
}

}  // namespace synclab::trace
