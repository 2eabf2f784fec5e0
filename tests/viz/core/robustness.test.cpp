// Damaged traces: cut short at many offsets, events with garbage fields, JSON chunks with fields
// of the wrong types. The model must give an error or a (partial) model with a warning, and
// every query on a model it gives must work.
#include "viz_test_util.h"

#include <synclab/catch.h>

#include <algorithm>
#include <cstring>

using namespace vt;

namespace {

// Every query the viewer makes, at a few cursors; nothing may crash or hang.
void exercise(const Model& m) {
  State s;
  std::vector<uint32_t> idx;
  std::vector<ActivityBucket> act;
  for (size_t l = 0; l < m.launches().size(); ++l) {
    const int launch = int(l);
    const LaunchInfo& L = m.launches()[l];
    const uint64_t cs[] = {0, L.steps / 3, L.steps / 2, L.steps ? L.steps - 1 : 0, L.steps + 5, kNoCursor};
    Player p(m, launch);
    for (uint64_t c : cs) {
      m.state_at(launch, c, &s);
      CHECK(s.warps.size() == L.warps);
      p.seek(c);
      p.step(-1);
      p.step(2);
      p.state(&s);
      for (Mark k : {Mark::Report, Mark::Acquire, Mark::Release, Mark::BarrierArrive, Mark::BarrierRelease,
                     Mark::SpinStart, Mark::LaneExit, Mark::WarpStep, Mark::RegionUpdate}) {
        const uint64_t n = m.next(launch, c, k);
        if (n != kNoCursor) CHECK(n < L.steps);
        const uint64_t pr = m.prev(launch, c, k, 0);
        if (pr != kNoCursor) CHECK(pr < L.steps);
      }
      (void)m.time_of(launch, c);
    }
    (void)m.first_interesting(launch);
    m.cursor_at_time(launch, L.last_time / 2);
    for (uint32_t w : m.active_warps(launch)) {
      m.spans_in(launch, w, L.first_time, L.last_time, &idx);
      for (uint32_t i : idx) CHECK(i < m.spans(launch).size());
      m.activity(launch, w, L.first_time, L.last_time + 1, 50, &act);
      (void)m.step_count(launch, w, 0, ~0ull);
    }
    (void)m.module_of(launch);
    (void)m.file_path(launch, 12345);
    (void)m.function(launch, 12345);
  }
  // Out-of-range launches.
  m.state_at(-1, 0, &s);
  m.state_at(int(m.launches().size()), 0, &s);
  CHECK(m.next(99, 0, Mark::Report) == kNoCursor);
  CHECK(m.spans(-3).empty());
}

std::string chunk(uint32_t kind, const std::string& payload) {
  std::string out(16, '\0');
  const uint64_t bytes = payload.size();
  std::memcpy(&out[0], &kind, 4);
  std::memcpy(&out[8], &bytes, 8);
  out += payload;
  out.resize(out.size() + (8 - payload.size() % 8) % 8, '\0');
  return out;
}

std::string preamble() {
  std::string out("SYNCTRC1", 8);
  const uint32_t version = 1, flags = 0;
  out.append(reinterpret_cast<const char*>(&version), 4);
  out.append(reinterpret_cast<const char*>(&flags), 4);
  return out;
}

std::string events(const std::vector<Event>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(Event));
}

}  // namespace

TEST_CASE("a trace cut short anywhere gives an error or a partial model with a warning", "[viz][robust]") {
  const std::string full = temp_path("cut-source");
  write_synthetic(full, 40000, 7, 2);
  Recorded rec(VIZ_BARRIER_EXE, "cut-barrier", "its");
  REQUIRE(!rec.path.empty());
  for (const std::string& src : {full, rec.path}) {
    const std::vector<unsigned char> bytes = read_all(src);
    REQUIRE(bytes.size() > 1000);
    std::vector<size_t> offsets = {0, 1, 7, 8, 15, 16, 17, 24, 31, 32, 33, 40, 100, 200, bytes.size() - 1,
                                   bytes.size() - 8, bytes.size() - 17, bytes.size() / 2, bytes.size() / 3 + 5};
    std::mt19937 rng(11);
    for (int i = 0; i < 25; ++i) offsets.push_back(rng() % bytes.size());
    const std::string cut = temp_path("cut");
    for (size_t off : offsets) {
      write_all(cut, bytes.data(), off);
      std::string err;
      std::unique_ptr<Model> m = Model::open(cut, &err);
      INFO("cut at " << off << " of " << bytes.size() << " (" << src << "): " << err);
      if (!m) {
        CHECK(!err.empty());
        CHECK(err.find(cut) != std::string::npos);
        continue;
      }
      CHECK_FALSE(m->complete());
      CHECK(!m->warning().empty());
      exercise(*m);
    }
    std::remove(cut.c_str());
  }
  // The uncut file opens cleanly.
  std::string err;
  auto m = Model::open(full, &err);
  REQUIRE(m);
  CHECK(m->complete());
  CHECK(m->launches().size() == 2);
  exercise(*m);
  std::remove(full.c_str());
  // A file that is not there.
  CHECK_FALSE(Model::open(temp_path("missing"), &err));
  CHECK(!err.empty());
}

TEST_CASE("events with garbage fields are skipped, not trusted", "[viz][robust]") {
  const std::string src = temp_path("garbage-source");
  write_synthetic(src, 20000, 3);
  std::vector<unsigned char> bytes = read_all(src);
  // Find the Events chunks and scribble over some of their records.
  std::mt19937_64 rng(5);
  size_t off = 16, scribbled = 0;
  while (off + 16 <= bytes.size()) {
    uint32_t kind;
    uint64_t n;
    std::memcpy(&kind, &bytes[off], 4);
    std::memcpy(&n, &bytes[off + 8], 8);
    if (kind == 5) {
      for (size_t e = off + 16; e + 32 <= off + 16 + n; e += 32) {
        if (rng() % 20) continue;
        Event ev;
        std::memcpy(&ev, &bytes[e], 32);
        switch (rng() % 6) {
          case 0: ev.warp = uint32_t(rng()); break;
          case 1: ev.kind = uint8_t(rng()); break;
          case 2: ev.aux = uint16_t(rng()); break;
          case 3: ev.a = rng(); break;
          case 4: ev.b = rng(); break;
          default: ev.lane = uint8_t(rng()); break;
        }
        std::memcpy(&bytes[e], &ev, 32);
        ++scribbled;
      }
    }
    off += 16 + n + (8 - n % 8) % 8;
  }
  REQUIRE(scribbled > 100);
  const std::string bad = temp_path("garbage");
  write_all(bad, bytes.data(), bytes.size());
  std::string err;
  auto m = Model::open(bad, &err);
  INFO(err);
  REQUIRE(m);
  exercise(*m);
  std::remove(src.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("JSON chunks with missing fields or fields of the wrong type", "[viz][robust]") {
  std::string f = preamble();
  f += chunk(1, R"({"program": 12, "device": [1, 2], "seed": "x", "model": null})");
  f += chunk(3, R"({"id": "zero", "name": 5, "kind": "matrix", "dims": "4x4"})");
  f += chunk(3, R"({"id": 1, "name": "huge", "kind": "lock-bits", "bytes": 1, "dims": [4294967295, 4294967295]})");
  f += chunk(3, R"({"id": 2, "name": "ok", "kind": "flags", "bytes": 16, "elem_bytes": 4, "dims": [4]})");
  f += chunk(2, R"({"name": ["k"], "grid": "big", "block": [64, -1], "warps_per_block": -3, "files": 7,
                    "functions": [{"name": 1, "lines": "x"}, 5]})");
  std::vector<Event> ev = {
      vt::ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 1ull << 40),  // absurd warp count
      vt::ev(1, 0, EventKind::WarpStep, 0xff, 0, 0xffffffffull | (7ull << 32), 3 | (9ull << 32) | (4ull << 48)),
      vt::ev(2, 0xfffffff0u, EventKind::WarpStep, 0xff, 0, 1, 0),
      vt::ev(3, 0, EventKind::RegionUpdate, 3, 2, 3, 1),          // flags[3]
      vt::ev(4, 0, EventKind::RegionUpdate, 3, 2, 99, 1),         // out of range
      vt::ev(5, 0, EventKind::RegionUpdate, 3, 0x0f02, 0, 1),     // bytes field on flags
      vt::ev(6, 0, EventKind::RegionUpdate, 3, 1 | 0x800, ~0ull, ~0ull),  // untracked region
      vt::ev(7, 0, EventKind::RegionUpdate, 3, 77, 0, 1),         // unknown region id
      vt::ev(8, 0, EventKind::BarrierRelease, 0xff, 0, 32, ~0ull),
      vt::ev(9, 0, EventKind::Report, 0xff, 3, 12345, 7),         // no such report
      vt::ev(10, 0, EventKind::BarrierArrive, 0xff, 0, 0xff, 0),
      vt::ev(11, 0, EventKind::LaneExit, 0xff, 0, 0xffffffffull, 0),
      vt::ev(12, 0, EventKind::KernelEnd, 0xff, 0, 0, 99),
  };
  f += chunk(5, events(ev));
  f += chunk(4, R"({"id": 0, "kind": 3, "title": null, "parties": [1, {"warp": "w"}], "launch": 0})");
  f += chunk(2, R"({"name": "empty_launch", "launch": 1})");  // a launch with no events
  const std::string path = temp_path("badjson");
  write_all(path, reinterpret_cast<const unsigned char*>(f.data()), f.size());
  std::string err;
  auto m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  CHECK(!m->warning().empty());  // cut short (no footer), skipped events, the untracked region
  REQUIRE(m->launches().size() == 2);
  const LaunchInfo& L = m->launches()[0];
  CHECK(L.status == LaunchStatus::Unknown);
  CHECK(L.warps <= (1u << 22));
  CHECK(m->launches()[1].steps == 0);
  CHECK(m->regions().size() == 3);
  CHECK(m->regions()[1].cells == 0);  // too big to track
  exercise(*m);
  const State s = m->state_at(0, L.steps - 1, StateOptions{0, 4, true});
  REQUIRE(s.warps.size() == std::min<uint32_t>(4, L.warps));
  CHECK(s.warps[0].exited == 0xffffffffu);
  REQUIRE(s.regions.size() == 3);
  REQUIRE(s.regions[2].cells.size() == 4);
  CHECK(s.regions[2].cells[3].value == 1);
  const State e = m->state_at(1, 0);
  CHECK(e.cursor == kNoCursor);
  std::remove(path.c_str());
}

TEST_CASE("event times that go backwards: a warning and consistent timeline queries, no crash", "[viz][robust]") {
  // One block of two warps. Warp 0 steps at 10, 30, then (damaged) 5, then 40; warp 1 at 20,
  // then (damaged) 2. The model places a step whose time went back at the latest time before it
  // (30 for both), so by hand: warp 0 has steps at 10, 30, 30, 40 and warp 1 at 20, 30.
  const std::string path = temp_path("backwards");
  {
    synclab::trace::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "backwards"}, {"backend", "sim"}}, false, {}, &err));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {64, 1, 1}}, {"warps_per_block", 2}});
    w.event(vt::ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 2));
    w.event(vt::ev(10, 0, EventKind::WarpStep, 0xff, 0, 0xffffffffull, 1));
    w.event(vt::ev(20, 1, EventKind::WarpStep, 0xff, 0, 0x0000ffffull, 1));
    w.event(vt::ev(30, 0, EventKind::WarpStep, 0xff, 0, 0xffffffffull, 2));
    w.event(vt::ev(5, 0, EventKind::WarpStep, 0xff, 0, 0xffffffffull, 3));
    w.event(vt::ev(2, 1, EventKind::WarpStep, 0xff, 0, 0x0000ffffull, 2));
    w.event(vt::ev(40, 0, EventKind::WarpStep, 0xff, 0, 0x1ull, 4));
    w.event(vt::ev(41, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
    w.close();
  }
  std::string err;
  auto m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  CHECK(m->complete());
  CHECK(m->warning().find("backwards") != std::string::npos);
  REQUIRE(m->launches().size() == 1);
  const LaunchInfo& L = m->launches()[0];
  CHECK(L.time_backsteps == 2);
  CHECK(L.first_time == 0);
  CHECK(L.last_time == 41);  // the latest time, not the last event's before it

  std::vector<ActivityBucket> act;
  // One bucket per time unit over [0, 42).
  m->activity(0, 0, 0, 42, 42, &act);
  REQUIRE(act.size() == 42);
  CHECK(act[10].steps == 1);
  CHECK(act[30].steps == 2);
  CHECK(act[30].lanes == 64);
  CHECK(act[40].steps == 1);
  CHECK(act[40].lanes == 1);
  CHECK(act[5].steps == 0);
  m->activity(0, 1, 0, 42, 42, &act);
  CHECK(act[20].steps == 1);
  CHECK(act[30].steps == 1);
  CHECK(act[2].steps == 0);
  // A window that starts after the damaged times: [25, 42) in 17 one-unit buckets.
  m->activity(0, 0, 25, 42, 17, &act);
  CHECK(act[5].steps == 2);   // time 30
  CHECK(act[15].steps == 1);  // time 40
  uint64_t total = 0;
  for (const ActivityBucket& b : act) total += b.steps;
  CHECK(total == 3);
  CHECK(m->step_count(0, 0, 0, 30) == 1);
  CHECK(m->step_count(0, 0, 30, 41) == 3);
  CHECK(m->step_count(0, 1, 0, ~0ull) == 2);
  // The recorded times themselves are kept.
  CHECK(m->time_of(0, 4) == 5);
  exercise(*m);
  std::remove(path.c_str());
}

TEST_CASE("many steps with shuffled times: bucketed activity counts every step once", "[viz][robust]") {
  // 300 steps of warp 0 at pseudo-random times in [0, 1000): the model sorts them as running
  // maxima, so every step lands in some bucket of [0, 1000] and the buckets add up to 300, for
  // few buckets (the galloping path) and many (the per-step path).
  const std::string path = temp_path("shuffled");
  std::vector<uint64_t> times;
  {
    synclab::trace::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "shuffled"}, {"backend", "sim"}}, false, {}, &err));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    w.event(vt::ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 1));
    std::mt19937 rng(3);
    for (int i = 0; i < 300; ++i) {
      times.push_back(rng() % 1000);
      w.event(vt::ev(times.back(), 0, EventKind::WarpStep, 0xff, 0, 0x3ull, 1));
    }
    w.close();
  }
  std::string err;
  auto m = Model::open(path, &err);
  REQUIRE(m);
  CHECK(m->launches()[0].time_backsteps > 0);
  // Running maxima computed here, independently: how many fall in [0, 500) and [500, 1000].
  uint64_t run = 0, low = 0;
  for (uint64_t t : times) {
    run = std::max(run, t);
    low += run < 500;
  }
  std::vector<ActivityBucket> act;
  for (uint32_t buckets : {1u, 2u, 7u, 1000u}) {
    m->activity(0, 0, 0, 1000, buckets, &act);
    uint64_t steps = 0, lanes = 0;
    for (const ActivityBucket& b : act) steps += b.steps, lanes += b.lanes;
    INFO(buckets << " buckets");
    CHECK(steps == 300);
    CHECK(lanes == 600);
  }
  m->activity(0, 0, 0, 1000, 2, &act);
  CHECK(act[0].steps == low);
  CHECK(act[1].steps == 300 - low);
  exercise(*m);
  std::remove(path.c_str());
}

TEST_CASE("report parties: a warp within its block becomes the launch's warp", "[viz][robust]") {
  // The simulator writes a party's warp as the warp within its block; the windows compare it with
  // Event::warp. 2 blocks of 3 warps: block 1's warp 1 is the launch's warp 4.
  tt::TempFile f("parties.trace");
  synclab::trace::Writer w;
  std::string err;
  REQUIRE(w.open(f.path, {{"program", "parties"}}, false, synclab::trace::WriterOptions{}, &err));
  w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {2, 1, 1}}, {"block", {96, 1, 1}}, {"warps_per_block", 3}});
  w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 6));
  w.event(tt::step(1, 4, 0xffffffffu, 0, 1));
  const uint32_t id = w.report({{"kind", "race"},
                                {"launch", 0},
                                {"parties",
                                 {{{"block", 1}, {"warp", 1}, {"lane", 2}},
                                  {{"block", 0}, {"warp", 2}, {"lane", 0}},
                                  {{"block", 1}, {"warp", 5}, {"lane", 1}}}}});
  w.event(ev(2, 4, EventKind::Report, 2, 6, id, 1));
  w.event(ev(3, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
  w.close();
  std::unique_ptr<Model> m = Model::open(f.path, &err);
  INFO(err);
  REQUIRE(m);
  REQUIRE(m->reports().size() == 1);
  const auto& ps = m->reports()[0].parties;
  REQUIRE(ps.size() == 3);
  CHECK(ps[0].warp == 4);
  CHECK(ps[1].warp == 2);
  CHECK(ps[2].warp == 5);  // not a warp within a block of 3: taken as the launch's warp
}
