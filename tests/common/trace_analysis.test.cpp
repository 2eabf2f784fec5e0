// Derived intervals and the Chrome export, on hand-built traces whose barrier waits, spins and
// critical sections are known in advance.
#include "sample_trace.h"
#include "trace_test_util.h"

#include <synclab/trace_analysis.h>
#include <synclab/trace_export.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>

#include <synclab/catch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

using namespace synclab::trace;
using tt::ev;
using tt::step;

namespace {

struct Expected {
  IntervalKind kind;
  uint32_t warp;
  uint64_t begin, end;
  bool open;
};

}  // namespace

TEST_CASE("analysis: barrier waits, spins, critical sections of a known trace", "[trace][analysis]") {
  tt::TempFile f("lock.trace");
  {
    std::string werr;
    REQUIRE(sample::write_lock_trace(f.path, &werr));
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);

  std::vector<Interval> iv = analyze_launch(*t, 0);
  std::vector<Expected> want = {
      {IntervalKind::BarrierWait, 0, 1, 6, false},
      {IntervalKind::BarrierWait, 1, 5, 6, false},
      {IntervalKind::Spin, 3, 13, 22, false},
      {IntervalKind::CriticalSection, 2, 30, 44, false},
      {IntervalKind::Spin, 2, 34, 40, false},
      {IntervalKind::CriticalSection, 3, 45, 50, true},
  };
  std::string got;
  for (const Interval& i : iv)
    got += interval_name(*t, i) + " warp " + std::to_string(i.warp) + " [" + std::to_string(i.begin) + "," +
           std::to_string(i.end) + "]\n";
  INFO(got);
  REQUIRE(iv.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO("interval " << k);
    CHECK(iv[k].kind == want[k].kind);
    CHECK(iv[k].warp == want[k].warp);
    CHECK(iv[k].begin == want[k].begin);
    CHECK(iv[k].end == want[k].end);
    CHECK(iv[k].open_at_end == want[k].open);
    CHECK(iv[k].launch == 0);
  }
  CHECK(iv[0].block == 0);
  CHECK(iv[2].line == 20);
  CHECK(iv[2].iterations == 3);
  CHECK(iv[2].pc == 10);
  CHECK(iv[4].line == 22);
  CHECK(iv[4].iterations == 2);
  CHECK(iv[4].lanes == 0xfffffff7u);
  CHECK(iv[3].lane == 3);
  CHECK(iv[3].element == 5);
  CHECK(interval_name(*t, iv[0]) == "barrier wait");
  CHECK(interval_name(*t, iv[2]) == "spin at line 20");
  CHECK(interval_name(*t, iv[3]) == "critical section locks[5]");
  CHECK(interval_name(*t, iv[5]) == "critical section locks[7]");

  // Launch 1: the warp waits at a barrier that never releases.
  std::vector<Interval> stuck = analyze_launch(*t, 1);
  REQUIRE(stuck.size() == 1);
  CHECK(stuck[0].kind == IntervalKind::BarrierWait);
  CHECK(stuck[0].warp == 1);
  CHECK(stuck[0].begin == 101);
  CHECK(stuck[0].end == 110);
  CHECK(stuck[0].open_at_end);

  // analyze() = both launches.
  CHECK(analyze(*t).size() == iv.size() + 1);
  // A higher threshold drops the 2-iteration spin only.
  AnalysisOptions opt;
  opt.min_spin_iterations = 3;
  auto fewer = analyze_launch(*t, 0, opt);
  CHECK(fewer.size() == iv.size() - 1);

  LaunchStats s = launch_stats(*t, 0);
  CHECK(s.barrier_releases == 1);
  CHECK(s.status == 0);
  CHECK(s.warps == 4);
  CHECK(s.atomics == 3 + 1 + 4 * 3);
  CHECK(s.atomics_changed == 3 + 1);
  CHECK(s.stores == 3 + 1);
  CHECK(launch_stats(*t, 1).status == 2);  // deadlock
}

TEST_CASE("analysis: a spin still going when the launch ends is open at the end", "[trace][analysis]") {
  // Lockstep hang: 31 lanes spin on a failing CAS until the simulator gives up.
  tt::TempFile f("hang.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "hang"}}, false, WriterOptions{}, &err));
    w.kernel({{"name", "naive"}, {"launch", 0}, {"warps_per_block", 1}});
    uint64_t t = 0;
    // Each step's WarpStep first, then its atomics with the step's time.
    w.event(step(t, 0, 0xffffffffu, 10, 7, InstrClass::Atomic));
    w.event(ev(t++, 0, EventKind::Atomic, 0, tt::mem_aux(true), 0x100, (uint64_t(1) << 32) | 0));  // lane 0 wins
    w.event(step(t++, 0, 0xffffffffu, 11, 7, InstrClass::Branch));
    for (int i = 0; i < 10; ++i) {
      w.event(step(t, 0, 0xfffffffeu, 10, 7, InstrClass::Atomic));
      for (uint8_t lane = 1; lane < 4; ++lane)
        w.event(ev(t, 0, EventKind::Atomic, lane, tt::mem_aux(true), 0x100, (uint64_t(1) << 32) | 1));
      ++t;
      w.event(step(t++, 0, 0xfffffffeu, 11, 7, InstrClass::Branch));
    }
    w.event(ev(t + 5, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 3));
    w.close();
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  auto iv = analyze_launch(*t, 0);
  REQUIRE(iv.size() == 1);
  CHECK(iv[0].kind == IntervalKind::Spin);
  CHECK(iv[0].open_at_end);
  CHECK(iv[0].line == 7);
  // Iterations start at the backward jumps: steps 2, 4, ..., 20 (the pass in which lane 0 won
  // came before the first jump, so it is no iteration); 9 of them end before the launch does.
  CHECK(iv[0].begin == 2);
  CHECK(iv[0].end == 27);  // stretched to the launch's last event
  CHECK(iv[0].iterations == 9);
  CHECK(iv[0].lanes == 0xfffffffeu);
}

TEST_CASE("analysis: an access belongs to the thread group of the WarpStep before it", "[trace][analysis]") {
  // Two thread groups of one warp (ITS) step in turn: lanes 0-15 re-read a flag (pc 10-11, line 7),
  // lanes 16-31 store in their loop (pc 20-21, line 9). Each access follows its own group's
  // WarpStep with the same time, so the reads are the first group's and the stores the second's:
  // the first group spins, the second does not.
  tt::TempFile f("groups.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "groups"}}, false, WriterOptions{}, &err));
    w.kernel({{"name", "k"}, {"launch", 0}, {"warps_per_block", 1}});
    uint64_t t = 0;
    w.event(ev(t++, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 1));
    for (int round = 0; round < 6; ++round) {
      w.event(step(t, 0, 0x0000ffffu, 10, 7, InstrClass::Load));
      w.event(ev(t++, 0, EventKind::MemAccess, 0, tt::mem_aux(false), 0x100, 0));
      w.event(step(t, 0, 0xffff0000u, 20, 9, InstrClass::Store));
      w.event(ev(t++, 0, EventKind::MemAccess, 16, tt::mem_aux(true), 0x200, uint64_t(round)));
      w.event(step(t++, 0, 0x0000ffffu, 11, 7, InstrClass::Branch));
      w.event(step(t++, 0, 0xffff0000u, 21, 9, InstrClass::Branch));
    }
    w.event(ev(t, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 3));
    w.close();
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  const auto iv = analyze_launch(*t, 0);
  REQUIRE(iv.size() == 1);
  CHECK(iv[0].kind == IntervalKind::Spin);
  CHECK(iv[0].lanes == 0x0000ffffu);
  CHECK(iv[0].line == 7);
  CHECK(iv[0].pc == 10);
  CHECK(iv[0].iterations == 4);  // those begun in rounds 2-5 (1-based) end at a backward jump; round 6's is open
  CHECK(iv[0].open_at_end);
  // It starts at the group's WarpStep of round 2 (time 5), before that step's read.
  const Event& first = t->event(iv[0].first_event);
  CHECK(first.kind == uint8_t(EventKind::WarpStep));
  CHECK(first.time == 1 + 4);
  CHECK(t->event(iv[0].first_event + 1).kind == uint8_t(EventKind::MemAccess));
}

TEST_CASE("chrome export: tracks, slices and instants of a known trace", "[trace][export]") {
  tt::TempFile f("lock.trace");
  {
    std::string werr;
    REQUIRE(sample::write_lock_trace(f.path, &werr));
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  std::ostringstream out;
  REQUIRE(write_chrome_json(*t, out, &err));
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(out.str()));
  REQUIRE(j["traceEvents"].is_array());

  std::map<std::pair<int, uint64_t>, std::string> threads;  // (pid, tid) -> name
  std::map<int, std::string> processes;
  struct Slice {
    std::string name;
    int pid;
    uint64_t tid;
    double ts, dur;
  };
  std::vector<Slice> slices;
  std::vector<nlohmann::json> instants;
  for (const nlohmann::json& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name")
      threads[{e["pid"].get<int>(), e["tid"].get<uint64_t>()}] = e["args"]["name"];
    else if (ph == "M" && e["name"] == "process_name")
      processes[e["pid"].get<int>()] = e["args"]["name"];
    else if (ph == "X")
      slices.push_back({e["name"], e["pid"], e["tid"], e["ts"], e["dur"]});
    else if (ph == "i")
      instants.push_back(e);
  }
  // A process per launch.
  REQUIRE(processes.size() == 2);
  std::set<std::string> pnames;
  for (auto& [pid, name] : processes) pnames.insert(name);
  CHECK(pnames.count("launch 0: lock_kernel grid (2,1,1) block (64,1,1)") == 1);
  CHECK(pnames.count("launch 1: stuck grid (1,1,1) block (64,1,1)") == 1);
  // The thread names of launch 0: every warp, plus a second track of warp 2 for the spin that
  // overlaps the critical section.
  int pid0 = -1;
  for (auto& [pid, name] : processes)
    if (name.rfind("launch 0:", 0) == 0) pid0 = pid;
  std::set<std::string> tnames;
  for (auto& [key, name] : threads)
    if (key.first == pid0) tnames.insert(name);
  CHECK(tnames == std::set<std::string>{"block 0 warp 0", "block 0 warp 1", "block 1 warp 0",
                                        "block 1 warp 0 (2)", "block 1 warp 1"});

  auto find = [&](const std::string& name, double ts) -> const Slice* {
    for (const Slice& s : slices)
      if (s.name == name && s.ts == ts && s.pid == pid0) return &s;
    return nullptr;
  };
  auto track = [&](const Slice* s) { return threads[{s->pid, s->tid}]; };
  const Slice* b0 = find("barrier wait", 1);
  const Slice* b1 = find("barrier wait", 5);
  const Slice* spin3 = find("spin at line 20", 13);
  const Slice* cs = find("critical section locks[5]", 30);
  const Slice* spin2 = find("spin at line 22", 34);
  const Slice* cs7 = find("critical section locks[7]", 45);
  REQUIRE(b0);
  REQUIRE(b1);
  REQUIRE(spin3);
  REQUIRE(cs);
  REQUIRE(spin2);
  REQUIRE(cs7);
  CHECK(b0->dur == 5);
  CHECK(track(b0) == "block 0 warp 0");
  CHECK(b1->dur == 1);
  CHECK(track(b1) == "block 0 warp 1");
  CHECK(spin3->dur == 9);
  CHECK(track(spin3) == "block 1 warp 1");
  CHECK(cs->dur == 14);
  CHECK(track(cs) == "block 1 warp 0");
  CHECK(spin2->dur == 6);
  CHECK(track(spin2) == "block 1 warp 0 (2)");
  CHECK(cs7->dur == 5);
  CHECK(track(cs7) == "block 1 warp 1");
  CHECK(slices.size() == 7);  // + the deadlocked barrier wait of launch 1

  REQUIRE(instants.size() == 1);
  CHECK(instants[0]["name"] == "data race on x");
  CHECK(instants[0]["ts"] == 46);
  CHECK(threads[{instants[0]["pid"].get<int>(), instants[0]["tid"].get<uint64_t>()}] == "block 1 warp 1");
}

TEST_CASE("chrome export: GPU times are ns since the first event, written in us", "[trace][export]") {
  tt::TempFile f("gpu.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "gpu"}}, true, WriterOptions{}, &err));
    w.kernel({{"name", "k"}, {"launch", 0}, {"warps_per_block", 1}});
    const uint64_t base = 1700000000000000000ull;
    w.event(ev(base, 0, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
    w.event(ev(base + 2500, 0, EventKind::BarrierRelease, kAllLanes, 0, 32, 0));
    w.close();
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  std::ostringstream out;
  REQUIRE(write_chrome_json(*t, out, &err));
  auto j = nlohmann::json::parse(out.str());
  int n = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X") {
      ++n;
      CHECK(e["ts"].get<double>() == 0.0);
      CHECK(e["dur"].get<double>() == Approx(2.5));
      CHECK(e["name"] == "barrier wait");
    }
  CHECK(n == 1);
}

TEST_CASE("summary names the settings, launches, regions, reports and completeness", "[trace][export]") {
  tt::TempFile f("lock.trace");
  {
    std::string werr;
    REQUIRE(sample::write_lock_trace(f.path, &werr));
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  std::ostringstream out;
  write_summary(*t, out);
  const std::string s = out.str();
  INFO(s);
  for (const char* line :
       {"program: lock-demo", "backend: sim", "model: its", "scheduler: rr", "seed: 3",
        "device: teaching", "launch 0: lock_kernel grid (2,1,1) block (64,1,1)", "barrier releases: 1",
        "atomics: 16 (4 changed memory)", "spin at line 20: 3 iterations", "critical sections: 2 (1 still open at the end)",
        "region 0: locks lock-bits 32x32 at 0x3000, 128 bytes", "report 0 (race, error): data race on x",
        "lines: lock.cu:33", "complete: yes"})
    CHECK(s.find(line) != std::string::npos);
}

TEST_CASE("analysis: lock bits written a word at a time", "[trace][analysis]") {
  // The simulator records a store or atomic to a lock-bits region as one RegionUpdate: a = the
  // first bit of the bytes written, aux bits 8-11 = how many bytes, b = their new value.
  tt::TempFile f("bits.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "bits"}}, false, WriterOptions{}, &err));
    w.region(region_json(0, "locks", "lock-bits", 0x1000, 16, 1, {128}));
    w.region(region_json(1, "ready", "flags", 0x2000, 16, 32, {4}));
    w.kernel({{"name", "k"}, {"launch", 0}, {"warps_per_block", 1}});
    const uint16_t word = uint16_t(0 | (4 << kRegionBytesShift));
    w.event(ev(1, 0, EventKind::RegionUpdate, 2, word, 32, 0b1010));  // lane 2 sets bits 33, 35
    w.event(ev(3, 0, EventKind::RegionUpdate, 7, word, 32, 0b1011));  // lane 7 sets bit 32
    w.event(ev(5, 0, EventKind::RegionUpdate, 2, word, 32, 0b1001));  // bit 33 cleared
    w.event(ev(6, 0, EventKind::RegionUpdate, 7, uint16_t(0 | (1 << kRegionBytesShift)), 32, 0b1000));  // bit 32 cleared
    w.event(ev(7, 0, EventKind::RegionUpdate, 1, 1, 2, 1));  // flags[2] set by lane 1
    w.event(ev(9, 0, EventKind::RegionUpdate, 1, 1, 2, 0));  // ... and cleared
    w.event(ev(12, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
    w.close();
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  auto iv = analyze_launch(*t, 0);
  std::string got;
  for (const Interval& i : iv)
    got += interval_name(*t, i) + " [" + std::to_string(i.begin) + "," + std::to_string(i.end) + "] lane " +
           std::to_string(i.lane) + "\n";
  INFO(got);
  // flags[2] set and cleared is a signal, not a lock: no critical section for it.
  REQUIRE(iv.size() == 3);
  // Sorted by begin: bit 33 [1,5] lane 2, bit 35 [1,12] open, bit 32 [3,6] lane 7.
  CHECK(interval_name(*t, iv[0]) == "critical section locks[33]");
  CHECK(iv[0].begin == 1);
  CHECK(iv[0].end == 5);
  CHECK(iv[0].lane == 2);
  CHECK(interval_name(*t, iv[1]) == "critical section locks[35]");
  CHECK(iv[1].end == 12);
  CHECK(iv[1].open_at_end);
  CHECK(interval_name(*t, iv[2]) == "critical section locks[32]");
  CHECK(iv[2].begin == 3);
  CHECK(iv[2].end == 6);
  CHECK(iv[2].lane == 7);
}

TEST_CASE("summary: the simulator's device object and demangled kernel names", "[trace][export]") {
  tt::TempFile f("dev.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "p"}, {"device", {{"profile", "teaching"}, {"name", "SyncLab teaching GPU"}}}},
                   false, WriterOptions{}, &err));
    w.kernel({{"name", "_Z1kPi"}, {"display", "k(int*)"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}},
              {"warps_per_block", 1}});
    w.close();
  }
  std::string err;
  auto t = load(f.path, &err);
  REQUIRE(t);
  std::ostringstream out;
  write_summary(*t, out);
  INFO(out.str());
  CHECK(out.str().find("device: teaching (SyncLab teaching GPU)\n") != std::string::npos);
  CHECK(out.str().find("launch 0: k(int*) grid (1,1,1) block (32,1,1)\n") != std::string::npos);
}
