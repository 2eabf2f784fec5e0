// Properties on random and recorded traces:
//  - seeking through checkpoints gives exactly the state that replaying from the start gives;
//  - a Player moved around at random agrees with both;
//  - lane states and cells agree with a plain reference replay written from the rules in model.h;
//  - navigation and timeline queries agree with brute-force scans of the events.
#include "viz_test_util.h"

#include <synclab/catch.h>

#include <synclab/trace_analysis.h>

#include <algorithm>
#include <map>

using namespace vt;

namespace {

// ---- the reference: model.h's rules, applied naively from event 0 --------------------------------

struct RefWarp {
  uint32_t started = 0, exited = 0, at_barrier = 0, barrier = 0;
  int64_t last_step = -1;
};
struct RefCell {
  uint64_t value = 0;
  int64_t writer = -1, owner = -1, completion = -1;
};
struct RefState {
  std::vector<RefWarp> warps;
  std::vector<std::vector<RefCell>> cells;
  std::vector<uint64_t> acquires, releases;  // cursors where a lock bit went 0->1 / 1->0
};

RefState reference(const Model& m, int launch, uint64_t cursor) {
  const LaunchInfo& L = m.launches()[size_t(launch)];
  RefState r;
  r.warps.resize(L.warps);
  for (const RegionInfo& R : m.regions()) r.cells.emplace_back(R.cells);
  std::map<uint32_t, size_t> region_of;
  for (size_t i = m.regions().size(); i-- > 0;) region_of[m.regions()[i].id] = i;
  for (uint64_t c = 0; c <= cursor && c < L.steps; ++c) {
    const Event& e = m.trace().event(L.first_event + c);
    const auto k = EventKind(e.kind);
    if (k == EventKind::KernelBegin || k == EventKind::KernelEnd) continue;
    if (k == EventKind::BarrierRelease) {
      for (uint32_t w = 0; w < L.warps; ++w)
        if (w / L.warps_per_block == e.b && r.warps[w].barrier == e.aux) r.warps[w].at_barrier = 0;
      continue;
    }
    if (e.warp >= L.warps) continue;
    RefWarp& w = r.warps[e.warp];
    if (k == EventKind::WarpStep) {
      w.started |= uint32_t(e.a);
      w.last_step = int64_t(c);
    } else if (k == EventKind::BarrierArrive) {
      w.started |= uint32_t(e.a);
      w.at_barrier |= uint32_t(e.a);
      w.barrier = e.aux;
    } else if (k == EventKind::LaneExit) {
      w.started |= uint32_t(e.a);
      w.exited |= uint32_t(e.a);
      w.at_barrier &= ~uint32_t(e.a);
    } else if (k == EventKind::RegionUpdate) {
      auto it = region_of.find(e.aux & 0xff);
      if (it == region_of.end()) continue;
      const RegionInfo& R = m.regions()[it->second];
      std::vector<RefCell>& cells = r.cells[it->second];
      const unsigned nbytes = (e.aux >> 8) & 0xf;
      bool acq = false, rel = false;
      auto write = [&](uint64_t i, uint64_t v) {
        if (i >= cells.size()) return;
        RefCell& x = cells[i];
        if (R.kind == RegionKind::LockBits) {
          v = v != 0;
          if (x.value == 0 && v == 1) x.owner = int64_t(c), acq = true;
          if (x.value == 1 && v == 0) x.owner = -1, rel = true;
        }
        x.value = v;
        x.writer = int64_t(c);
        if (x.completion < 0) x.completion = int64_t(c);
      };
      if (R.kind == RegionKind::LockBits && nbytes) {
        for (unsigned b = 0; b < 8 * std::min(nbytes, 8u); ++b)
          if (e.a < cells.size()) write(e.a + b, (e.b >> b) & 1);
      } else {
        write(e.a, e.b);
      }
      if (acq) r.acquires.push_back(c);
      if (rel) r.releases.push_back(c);
    }
  }
  return r;
}

// Lanes seen where two rules applied at once (so that their order was tested): in a spin and
// holding a lock; at a barrier and holding a lock; exited and at a barrier.
struct Overlaps {
  size_t crit_spin = 0, barrier_crit = 0;
};

LaneState ref_lane(const Model& m, int launch, const std::vector<synclab::trace::Interval>& iv, const RefState& r,
                   uint32_t warp, int lane, uint64_t c, Overlaps* ov = nullptr) {
  const LaunchInfo& L = m.launches()[size_t(launch)];
  const RefWarp& w = r.warps[warp];
  const uint32_t bit = 1u << lane;
  bool spin = false, crit = false;
  for (const auto& x : iv) {
    if (x.warp != warp) continue;
    const uint64_t f = x.first_event - L.first_event, l = x.last_event - L.first_event;
    // a spin still open at the end lasts to the launch's last event
    if (x.kind == synclab::trace::IntervalKind::Spin && f <= c && (c <= l || x.open_at_end) && (x.lanes & bit))
      spin = true;
    if (x.kind == synclab::trace::IntervalKind::CriticalSection && x.lane == lane && f <= c && (c < l || x.open_at_end))
      crit = true;
  }
  // the current instruction: the warp's last step up to the cursor
  const int64_t cur = w.last_step;
  const uint32_t mask = cur >= 0 ? uint32_t(m.trace().event(L.first_event + uint64_t(cur)).a) : 0;
  const uint32_t started = w.started;
  if (ov && !(w.exited & bit) && (started & bit)) {
    ov->crit_spin += crit && spin && !(w.at_barrier & bit);
    ov->barrier_crit += crit && (w.at_barrier & bit);
  }
  if (w.exited & bit) return LaneState::Exited;
  if (!(started & bit)) return LaneState::Inactive;
  if (w.at_barrier & bit) return LaneState::AtBarrier;
  if (crit) return LaneState::InCritical;
  if (spin) return LaneState::Spinning;
  if (mask & bit) return LaneState::Active;
  return LaneState::MaskedOff;
}

// Checks the model's state at c against the reference; adds how many lanes were in each state.
void check_against_reference(const Model& m, int launch, uint64_t c, size_t* seen = nullptr, Overlaps* ov = nullptr) {
  const State s = m.state_at(launch, c);
  const RefState r = reference(m, launch, c);
  static std::map<std::pair<const Model*, int>, std::vector<synclab::trace::Interval>> cache;
  auto& iv = cache[{&m, launch}];
  if (iv.empty()) iv = synclab::trace::analyze_launch(m.trace(), launch);
  INFO("launch " << launch << " cursor " << c);
  REQUIRE(s.warps.size() == r.warps.size());
  for (uint32_t w = 0; w < r.warps.size(); ++w)
    for (int l = 0; l < 32; ++l) {
      INFO("warp " << w << " lane " << l);
      CHECK(s.warps[w].lanes[l] == ref_lane(m, launch, iv, r, w, l, c, ov));
      if (seen) ++seen[size_t(s.warps[w].lanes[l])];
    }
  REQUIRE(s.regions.size() == r.cells.size());
  for (size_t g = 0; g < r.cells.size(); ++g)
    for (size_t i = 0; i < r.cells[g].size(); ++i) {
      const CellView& x = s.regions[g].cells[i];
      const RefCell& y = r.cells[g][i];
      INFO("region " << g << " cell " << i);
      CHECK(x.value == y.value);
      CHECK(x.writer_cursor == (y.writer < 0 ? kNoCursor : uint64_t(y.writer)));
      CHECK(x.owner_cursor == (y.owner < 0 ? kNoCursor : uint64_t(y.owner)));
      CHECK(x.completion_cursor == (y.completion < 0 ? kNoCursor : uint64_t(y.completion)));
    }
}

}  // namespace

TEST_CASE("seek(k) through checkpoints equals replaying events 0..k", "[viz][seek]") {
  const std::string path = temp_path("seek");
  write_synthetic(path, 30000, 42, 2);
  std::string err;
  ModelOptions dense;  // many checkpoints
  dense.checkpoint_bytes_per_event = 1000;
  dense.min_checkpoint_interval = 16;
  ModelOptions none;  // only the one at the start: every seek replays from event 0
  none.min_checkpoint_interval = ~0u;
  ModelOptions normal;
  auto a = Model::open(path, &err, dense);
  auto b = Model::open(path, &err, none);
  auto n = Model::open(path, &err, normal);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(n);
  for (int launch = 0; launch < 2; ++launch) {
    const LaunchInfo& L = a->launches()[size_t(launch)];
    REQUIRE(L.steps > 25000);
    CHECK(a->checkpoint_count(launch) > 100);
    CHECK(b->checkpoint_count(launch) == 1);
    CHECK(n->checkpoint_count(launch) > 1);
    std::mt19937_64 rng(uint64_t(launch) + 1);
    Player p(*a, launch);
    State sa, sb, sn, sp;
    for (int i = 0; i < 60; ++i) {
      const uint64_t k = rng() % L.steps;
      a->state_at(launch, k, &sa);
      b->state_at(launch, k, &sb);
      n->state_at(launch, k, &sn);
      // the player: a jump, then a few single steps either way
      p.seek(k);
      p.state(&sp);
      INFO("launch " << launch << " k " << k);
      CHECK(diff_states(sa, sb) == "");
      CHECK(diff_states(sn, sb) == "");
      CHECK(diff_states(sp, sb) == "");
      const int64_t d = int64_t(rng() % 7) - 3;
      p.step(d);
      const uint64_t k2 = uint64_t(std::clamp<int64_t>(int64_t(k) + d, 0, int64_t(L.steps) - 1));
      CHECK(p.cursor() == k2);
      p.state(&sp);
      b->state_at(launch, k2, &sb);
      CHECK(diff_states(sp, sb) == "");
    }
    // Stepping one event at a time from the start equals seeking.
    Player q(*n, launch);
    for (uint64_t k = 0; k < 3000; ++k) {
      q.step(1);
      if (k % 97 == 0) {
        q.state(&sp);
        b->state_at(launch, q.cursor(), &sb);
        CHECK(diff_states(sp, sb) == "");
      }
    }
    // Partial views agree with the whole one.
    a->state_at(launch, L.steps / 2, &sa);
    a->state_at(launch, L.steps / 2, &sb, StateOptions{2, 3, false});
    REQUIRE(sb.warps.size() == 3);
    CHECK(sb.regions.empty());
    for (int i = 0; i < 3; ++i)
      for (int l = 0; l < 32; ++l) CHECK(sb.warps[size_t(i)].lanes[l] == sa.warps[size_t(i) + 2].lanes[l]);
  }
  std::remove(path.c_str());
}

TEST_CASE("lane states and cells agree with a plain replay of the rules", "[viz][reference]") {
  const std::string path = temp_path("reference");
  write_synthetic(path, 6000, 9);
  std::string err;
  auto m = Model::open(path, &err);
  REQUIRE(m);
  const LaunchInfo& L = m->launches()[0];
  std::mt19937_64 rng(3);
  std::vector<uint64_t> cursors = {0, 1, L.steps - 1};
  for (int i = 0; i < 80; ++i) cursors.push_back(rng() % L.steps);
  size_t seen[7] = {};
  Overlaps ov;
  for (uint64_t c : cursors) check_against_reference(*m, 0, c, seen, &ov);
  // ... and rules that compete for a lane were both in force at times, so their order was tested.
  CHECK(ov.crit_spin > 0);
  CHECK(ov.barrier_crit > 0);
  // Every lane state came up, so every rule was compared.
  for (int k = 0; k < 7; ++k) {
    INFO(lane_state_name(LaneState(k)));
    CHECK(seen[k] > 0);
  }
  // The trace has the features the rules are about.
  const RefState end = reference(*m, 0, L.steps - 1);
  CHECK(!end.acquires.empty());
  CHECK(!end.releases.empty());
  std::remove(path.c_str());
}

TEST_CASE("recorded traces agree with the plain replay too", "[viz][reference]") {
  Recorded lock(VIZ_LOCK_EXE, "ref-lock", "lockstep");
  Recorded wave(VIZ_WAVEFRONT_EXE, "ref-wave", "its");
  for (const Recorded* r : {&lock, &wave}) {
    REQUIRE(!r->path.empty());
    std::string err;
    auto m = Model::open(r->path, &err);
    REQUIRE(m);
    const LaunchInfo& L = m->launches()[0];
    std::mt19937_64 rng(8);
    std::vector<uint64_t> cursors = {L.steps - 1, m->first_interesting(0)};
    for (int i = 0; i < 6; ++i) cursors.push_back(rng() % L.steps);
    for (uint64_t c : cursors) check_against_reference(*m, 0, c);
  }
}

TEST_CASE("the current instruction is the warp's last WarpStep at or before the cursor", "[viz][reference]") {
  // The simulator writes a step's WarpStep first, then the events of its instruction with the
  // step's time. Cursors: 0 KernelBegin, 1 WarpStep t=5 line 10 (all lanes), 2 MemAccess t=5
  // lane 0, 3 WarpStep t=5 line 11 (lanes 0-15; the same time, hand-written: a later step must
  // not be taken for the access's), 4 MemAccess t=5 lane 1 (a store), 5 WarpStep t=6 line 12
  // (lanes 16-31), 6 KernelEnd.
  const std::string path = temp_path("current-step");
  {
    synclab::trace::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "current-step"}, {"backend", "sim"}}, false, {}, &err));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    using synclab::trace::InstrClass;
    w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 1));
    w.event(tt::step(5, 0, 0xffffffffu, 2, 10, InstrClass::Load));
    w.event(ev(5, 0, EventKind::MemAccess, 0, tt::mem_aux(false), 0x1000, 7));
    w.event(tt::step(5, 0, 0x0000ffffu, 3, 11, InstrClass::Store));
    w.event(ev(5, 0, EventKind::MemAccess, 1, tt::mem_aux(true), 0x1000, 8));
    w.event(tt::step(6, 0, 0xffff0000u, 4, 12));
    w.event(ev(7, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
    w.close();
  }
  std::string err;
  auto m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  REQUIRE(m->launches()[0].steps == 7);
  REQUIRE(m->event_at(0, 2).kind == uint8_t(EventKind::MemAccess));

  State s = m->state_at(0, 0);  // nothing executed yet
  CHECK_FALSE(s.warps[0].has_step);
  CHECK(s.warps[0].lanes[0] == LaneState::Inactive);

  for (uint64_t c : {1, 2}) {  // the line-10 step and its access
    INFO("cursor " << c);
    s = m->state_at(0, c);
    const WarpView& v = s.warps[0];
    REQUIRE(v.has_step);
    CHECK(v.line == 10);
    CHECK(v.pc == 2);
    CHECK(v.last_step_cursor == 1);
    CHECK(v.last_step_time == 5);
    CHECK(v.last_mask == 0xffffffffu);
    CHECK(v.started == 0xffffffffu);
    CHECK(v.instr_class == uint16_t(synclab::trace::InstrClass::Load));
    CHECK(v.last_event_cursor == c);
    for (int l = 0; l < 32; ++l) CHECK(v.lanes[l] == LaneState::Active);
  }
  for (uint64_t c : {3, 4}) {  // the line-11 step and its store
    INFO("cursor " << c);
    s = m->state_at(0, c);
    const WarpView& v = s.warps[0];
    CHECK(v.line == 11);
    CHECK(v.last_step_cursor == 3);
    CHECK(v.lanes[1] == LaneState::Active);
    CHECK(v.lanes[16] == LaneState::MaskedOff);
  }
  s = m->state_at(0, 5);
  CHECK(s.warps[0].line == 12);
  CHECK(s.warps[0].last_step_time == 6);
  CHECK(s.warps[0].lanes[0] == LaneState::MaskedOff);
  CHECK(s.warps[0].lanes[31] == LaneState::Active);
  // A Player stepping forward agrees.
  Player p(*m, 0);
  p.seek(1);
  p.step(1);
  State ps;
  p.state(&ps);
  CHECK(ps.warps[0].line == 10);
  std::remove(path.c_str());
}

TEST_CASE("navigation agrees with scanning the events", "[viz][navigation]") {
  const std::string path = temp_path("nav");
  write_synthetic(path, 8000, 21);
  std::string err;
  auto m = Model::open(path, &err);
  REQUIRE(m);
  const LaunchInfo& L = m->launches()[0];
  const RefState ref = reference(*m, 0, L.steps - 1);
  const auto iv = synclab::trace::analyze_launch(m->trace(), 0);
  std::vector<uint64_t> spin_starts;
  for (const auto& x : iv)
    if (x.kind == synclab::trace::IntervalKind::Spin) spin_starts.push_back(x.first_event - L.first_event);
  std::sort(spin_starts.begin(), spin_starts.end());
  spin_starts.erase(std::unique(spin_starts.begin(), spin_starts.end()), spin_starts.end());

  auto matches = [&](Mark k, uint64_t c, uint32_t warp) {
    const Event& e = m->event_at(0, c);
    const auto kind = EventKind(e.kind);
    auto in = [](const std::vector<uint64_t>& v, uint64_t c) { return std::binary_search(v.begin(), v.end(), c); };
    bool hit = false;
    switch (k) {
      case Mark::Report: hit = kind == EventKind::Report; break;
      case Mark::Acquire: hit = in(ref.acquires, c); break;
      case Mark::Release: hit = in(ref.releases, c); break;
      case Mark::BarrierArrive: hit = kind == EventKind::BarrierArrive; break;
      case Mark::BarrierRelease: hit = kind == EventKind::BarrierRelease; break;
      case Mark::SpinStart: hit = in(spin_starts, c); break;
      case Mark::LaneExit: hit = kind == EventKind::LaneExit; break;
      case Mark::WarpStep: hit = kind == EventKind::WarpStep; break;
      case Mark::RegionUpdate: hit = kind == EventKind::RegionUpdate; break;
      case Mark::StaleRead:
      case Mark::Reordering:
      case Mark::Visible: hit = false; break;  // no MemoryModel events in this trace (tested in memory_model.test.cpp)
    }
    if (!hit || warp == kNoWarp) return hit;
    if (k == Mark::BarrierRelease) return e.b == warp / L.warps_per_block;
    return e.warp == warp;
  };
  std::mt19937_64 rng(4);
  for (Mark k : {Mark::Report, Mark::Acquire, Mark::Release, Mark::BarrierArrive, Mark::BarrierRelease, Mark::SpinStart,
                 Mark::LaneExit, Mark::WarpStep, Mark::RegionUpdate}) {
    size_t found = 0;
    for (int i = 0; i < 40; ++i) {
      const uint64_t c = rng() % L.steps;
      const uint32_t warp = i % 2 ? uint32_t(rng() % L.warps) : kNoWarp;
      uint64_t want_next = kNoCursor, want_prev = kNoCursor;
      for (uint64_t x = c + 1; x < L.steps; ++x)
        if (matches(k, x, warp)) {
          want_next = x;
          break;
        }
      for (uint64_t x = c; x-- > 0;)
        if (matches(k, x, warp)) {
          want_prev = x;
          break;
        }
      INFO(mark_name(k) << " from " << c << " warp " << warp);
      CHECK(m->next(0, c, k, warp) == want_next);
      CHECK(m->prev(0, c, k, warp) == want_prev);
      found += want_next != kNoCursor;
    }
    INFO(mark_name(k));
    CHECK(found > 0);
    // From the start.
    uint64_t first = kNoCursor;
    for (uint64_t x = 0; x < L.steps; ++x)
      if (matches(k, x, kNoWarp)) {
        first = x;
        break;
      }
    CHECK(m->next(0, kNoCursor, k) == first);
  }
  // The viewer opens at the first report.
  uint64_t first_report = kNoCursor;
  for (uint64_t x = 0; x < L.steps && first_report == kNoCursor; ++x)
    if (m->event_at(0, x).kind == uint8_t(EventKind::Report)) first_report = x;
  REQUIRE(first_report != kNoCursor);
  CHECK(m->first_interesting(0) == first_report);
  std::remove(path.c_str());
}

namespace {

// Spans, activity, step counts and cursor_at_time of a synthetic trace against scanning its events,
// in random windows of up to `window` time units.
void check_timeline(const std::string& path, uint64_t window) {
  std::string err;
  auto m = Model::open(path, &err);
  REQUIRE(m);
  const LaunchInfo& L = m->launches()[0];
  const auto& spans = m->spans(0);
  REQUIRE(!spans.empty());
  // Spans are the analysis' intervals, sorted by (warp, first).
  CHECK(spans.size() == synclab::trace::analyze_launch(m->trace(), 0).size());
  for (size_t i = 1; i < spans.size(); ++i)
    CHECK((spans[i - 1].warp < spans[i].warp ||
           (spans[i - 1].warp == spans[i].warp && spans[i - 1].first <= spans[i].first)));
  std::mt19937_64 rng(6);
  std::vector<uint32_t> got;
  std::vector<ActivityBucket> act;
  for (int i = 0; i < 200; ++i) {
    const uint32_t w = uint32_t(rng() % L.warps);
    uint64_t t0 = L.first_time + rng() % (L.last_time - L.first_time + 1);
    uint64_t t1 = t0 + rng() % window;
    m->spans_in(0, w, t0, t1, &got);
    std::vector<uint32_t> want;
    for (size_t k = 0; k < spans.size(); ++k)
      if (spans[k].warp == w && spans[k].end >= t0 && spans[k].begin <= t1) want.push_back(uint32_t(k));
    CHECK(got == want);
    // activity: steps per bucket
    const uint32_t buckets = 1 + uint32_t(rng() % 64);
    m->activity(0, w, t0, t1, buckets, &act);
    REQUIRE(act.size() == buckets);
    std::vector<ActivityBucket> ref(buckets);
    uint64_t total = 0;
    for (uint64_t c = 0; c < L.steps; ++c) {
      const Event& e = m->event_at(0, c);
      if (e.kind != uint8_t(EventKind::WarpStep) || e.warp != w || e.time < t0 || e.time >= t1) continue;
      // bucket b holds [t0 + (t1-t0)*b/B, t0 + (t1-t0)*(b+1)/B)
      uint32_t b = 0;
      while (b + 1 < buckets && e.time >= t0 + (t1 - t0) * (b + 1) / buckets) ++b;
      ++ref[b].steps;
      ref[b].lanes += uint32_t(__builtin_popcount(uint32_t(e.a)));
      ++total;
    }
    for (uint32_t b = 0; b < buckets; ++b) {
      INFO("bucket " << b << " of " << buckets);
      CHECK(act[b].steps == ref[b].steps);
      CHECK(act[b].lanes == ref[b].lanes);
    }
    CHECK(m->step_count(0, w, t0, t1) == total);
    // cursor_at_time
    uint64_t want_c = 0;
    for (uint64_t c = 0; c < L.steps; ++c)
      if (m->event_at(0, c).time <= t0) want_c = c;
    CHECK(m->cursor_at_time(0, t0) == want_c);
  }
  CHECK(m->active_warps(0).size() == L.warps);
  std::remove(path.c_str());
}

}  // namespace

TEST_CASE("timeline queries agree with scanning", "[viz][timeline]") {
  const std::string path = temp_path("timeline");
  write_synthetic(path, 20000, 77);
  check_timeline(path, 3000);
}

// The model keeps a step's time in 4 bytes, as an offset from the launch's first time, when the
// launch's times span less than 2^32, and whole otherwise: both ways must answer alike.
TEST_CASE("timeline queries agree with scanning on GPU-like times, near and far apart", "[viz][timeline]") {
  const uint64_t origin = 1'764'000'000'000'000'000ull;  // ns since 1970, as %globaltimer counts
  const std::string near = temp_path("timeline-near");
  write_synthetic(near, 20000, 78, 1, origin, 1000);  // 1 us a step: the launch spans about 9 ms
  check_timeline(near, 3000 * 1000);
  const std::string far = temp_path("timeline-far");
  write_synthetic(far, 20000, 79, 1, origin, 1ull << 22);  // 4 ms a step: it spans about 38 s
  check_timeline(far, 3000ull << 22);
}
