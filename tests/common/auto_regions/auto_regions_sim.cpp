// Regions found in simulator traces without annotations (sim/exec/auto_regions.cpp): the programs
// here call no SyncLab API (auto_lock_registered excepted), run on the simulator with SYNCLAB_TRACE,
// and the tests read the trace back with the trace reader (synclab/trace_reader.h) and the
// viewer's model (viz/core), as the lock bits & flags window does.
#include <synclab/catch.h>
#include <synclab/trace_reader.h>

#include "viz/core/model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace synclab::viz;
using synclab::trace::EventKind;

// Runs a simulator build with SYNCLAB_TRACE; removes the trace and its log when done.
struct Recorded {
  std::string path, log_path;
  int status = -1;
  Recorded(const std::string& exe, const std::string& name, const std::string& args = "",
           const std::string& env = "") {
    mkdir(AUTO_TRACE_DIR, 0755);
    path = std::string(AUTO_TRACE_DIR) + "/" + name + "-" + std::to_string(getpid()) + ".trace";
    log_path = path + ".log";
    std::remove(path.c_str());
    const std::string cmd = "env SYNCLAB_TRACE='" + path + "' " + env + " '" + exe + "' " + args + " >'" +
                            log_path + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) path.clear();
  }
  ~Recorded() {
    if (!path.empty()) std::remove(path.c_str());
    std::remove(log_path.c_str());
  }
  std::string log() const {
    std::ifstream in(log_path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

std::unique_ptr<synclab::trace::Trace> load_ok(const std::string& path) {
  std::string err;
  auto t = synclab::trace::load(path, &err);
  INFO(err);
  REQUIRE(t);
  return t;
}

std::unique_ptr<Model> open_ok(const std::string& path) {
  std::string err;
  auto m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  return m;
}

std::vector<std::string> region_names(const synclab::trace::Trace& t) {
  std::vector<std::string> names;
  for (const auto& r : t.regions) names.push_back(r.value("name", std::string()));
  for (const auto& r : t.shared_regions) names.push_back("__shared__ " + r.value("name", std::string()));
  return names;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

int region_named(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.regions().size(); ++i)
    if (m.regions()[i].name == name) return int(i);
  return -1;
}

int launch_of_kernel(const Model& m, const std::string& display_prefix) {
  for (const LaunchInfo& L : m.launches())
    if (L.display.compare(0, display_prefix.size(), display_prefix) == 0) return L.index;
  return -1;
}

std::vector<uint64_t> marks(const Model& m, int launch, Mark k) {
  std::vector<uint64_t> out;
  for (uint64_t c = m.next(launch, kNoCursor, k); c != kNoCursor; c = m.next(launch, c, k)) out.push_back(c);
  return out;
}

// The lock program's global lock: every acquisition sets bit 0 of the word from 0 to 1 (the lane
// that took it holds it) and its release clears it, strictly alternating.
void check_lock_history(const Model& m, int launch, int region, size_t expected_acquires) {
  const auto acquires = marks(m, launch, Mark::Acquire);
  const auto releases = marks(m, launch, Mark::Release);
  REQUIRE(acquires.size() == expected_acquires);
  REQUIRE(releases.size() == expected_acquires);
  State s;
  for (size_t i = 0; i < acquires.size(); ++i) {
    INFO("acquisition " << i);
    CHECK(acquires[i] < releases[i]);
    if (i + 1 < acquires.size()) CHECK(releases[i] < acquires[i + 1]);
    const synclab::trace::Event& a = m.event_at(launch, acquires[i]);
    CHECK(a.kind == uint8_t(EventKind::RegionUpdate));
    m.state_at(launch, acquires[i], &s);
    const CellView& bit0 = s.regions[size_t(region)].cells[0];
    CHECK(bit0.value == 1);
    CHECK(bit0.owner_lane == a.lane);
    CHECK(bit0.owner_warp == a.warp);
    // Only thread 0 of each block takes the lock: lane 0 of the block's first warp.
    CHECK(a.lane == 0);
    m.state_at(launch, acquires[i] - 1, &s);
    CHECK(s.regions[size_t(region)].cells[0].value == 0);
    m.state_at(launch, releases[i], &s);
    CHECK(s.regions[size_t(region)].cells[0].value == 0);
    CHECK(s.regions[size_t(region)].cells[0].owner_lane == kNoLane);
    CHECK(m.event_at(launch, releases[i]).warp == a.warp);  // the holder releases it
  }
}

}  // namespace

TEST_CASE("an atomicCAS spin lock on a __device__ int: a lock-bits region named lock", "[auto][lock]") {
  const int blocks = 4, rounds = 3;
  for (const char* model : {"its", "lockstep"}) {
    SECTION(model) {
      Recorded rec(AUTO_LOCK_EXE, std::string("lock-") + model, std::to_string(blocks) + " " + std::to_string(rounds),
                   std::string("SYNCLAB_MODEL=") + model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);
      auto t = load_ok(rec.path);
      INFO("regions: " << joined(region_names(*t)));
      // The global lock word, and the kernel's __shared__ lock; not the counters.
      REQUIRE(t->regions.size() == 1);
      const nlohmann::json& r = t->regions[0];
      CHECK(r["name"] == "lock");
      CHECK(r["kind"] == "lock-bits");
      CHECK(r["bytes"] == 4);
      CHECK(r["elem_bits"] == 1);
      REQUIRE(t->shared_regions.size() == 1);
      CHECK(t->shared_regions[0]["name"] == "slock");
      CHECK(t->shared_regions[0]["kind"] == "lock-bits");
      CHECK(t->shared_regions[0]["bytes"] == 4);

      auto m = open_ok(rec.path);
      const int lock = region_named(*m, "lock");
      REQUIRE(lock >= 0);
      CHECK(m->regions()[size_t(lock)].kind == RegionKind::LockBits);
      CHECK(m->regions()[size_t(lock)].cells == 32);
      const int l0 = launch_of_kernel(*m, "count_under_lock");
      REQUIRE(l0 >= 0);
      CHECK(m->launches()[size_t(l0)].status == LaunchStatus::Ok);
      check_lock_history(*m, l0, lock, size_t(blocks * rounds));
      // At the end the lock is free and the bits other than bit 0 were never set.
      const State end = m->state_at(l0, m->launches()[size_t(l0)].steps - 1);
      for (const CellView& c : end.regions[size_t(lock)].cells) CHECK(c.value == 0);

      // The shared lock: each of the block's 4 warps takes it `rounds` times.
      const int l1 = launch_of_kernel(*m, "count_under_shared_lock");
      REQUIRE(l1 >= 0);
      const int slock = region_named(*m, "slock");
      REQUIRE(slock >= 0);
      CHECK(m->regions()[size_t(slock)].shared);
      CHECK(m->launches()[size_t(l1)].shared_offset.at(size_t(slock)) >= 0);
      const auto acquires = marks(*m, l1, Mark::Acquire);
      CHECK(acquires.size() == size_t(4 * rounds));
      for (uint64_t c : acquires) CHECK(m->event_at(l1, c).aux % 256 == m->regions()[size_t(slock)].id);
    }
  }
}

TEST_CASE("a flag in a cudaMalloc'd buffer: a flags region named after the allocation and offset", "[auto][flag]") {
  Recorded rec(AUTO_FLAG_EXE, "flag");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  // Where the program put the flag (it prints it): word N = 64 of a buffer of N + 2 ints.
  const std::string log = rec.log();
  const size_t at = log.find("flag at ");
  REQUIRE(at != std::string::npos);
  const uint64_t flag_address = std::strtoull(log.c_str() + at + 8, nullptr, 16);
  REQUIRE(flag_address != 0);
  auto t = load_ok(rec.path);
  INFO("regions: " << joined(region_names(*t)));
  REQUIRE(t->regions.size() == 1);  // the flag only: not the data words, not the sum
  REQUIRE(t->shared_regions.empty());
  const nlohmann::json& r = t->regions[0];
  // The allocation as hang reports name it (the program's only cudaMalloc), and the byte offset.
  CHECK(r["name"] == "cudaMalloc #1 (" + std::to_string(66 * 4) + " bytes) + " + std::to_string(64 * 4));
  CHECK(r["kind"] == "flags");
  CHECK(r["address"] == flag_address);
  CHECK(r["bytes"] == 4);
  CHECK(r["elem_bits"] == 32);

  auto m = open_ok(rec.path);
  const int flag = region_named(*m, r["name"].get<std::string>());
  REQUIRE(flag >= 0);
  CHECK(m->regions()[size_t(flag)].kind == RegionKind::Flags);
  REQUIRE(m->regions()[size_t(flag)].cells == 1);
  const LaunchInfo& L = m->launches().at(0);
  CHECK(L.status == LaunchStatus::Ok);
  // The flag reads 0 while block 0 polls it, then block 1's thread 0 sets it to 1, once.
  const auto updates = marks(*m, 0, Mark::RegionUpdate);
  REQUIRE(updates.size() == 1);
  const synclab::trace::Event& set = m->event_at(0, updates[0]);
  CHECK(set.b == 1);
  CHECK(set.lane == 0);
  CHECK(set.warp == L.warps_per_block * 1);  // block 1's first warp
  State s;
  m->state_at(0, updates[0] - 1, &s);
  CHECK(s.regions[size_t(flag)].cells[0].value == 0);
  m->state_at(0, updates[0], &s);
  CHECK(s.regions[size_t(flag)].cells[0].value == 1);
  CHECK(s.regions[size_t(flag)].cells[0].writer_warp == set.warp);
  // Block 0 read the flag as 0 several times before the region appeared (that is how it was found):
  // the region's first event is a snapshot of 0 (none: zero is not written) or the set itself.
  size_t polls_before = 0;
  for (uint64_t c = 0; c < updates[0]; ++c) {
    const synclab::trace::Event& e = m->event_at(0, c);
    if (e.kind == uint8_t(EventKind::MemAccess) && e.a == flag_address && e.warp == 0) ++polls_before;
  }
  CHECK(polls_before >= 3);
}

TEST_CASE("a lock the program registered: its region wins, no automatic one", "[auto][registered]") {
  Recorded rec(AUTO_LOCK_REGISTERED_EXE, "registered", "4 3");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  auto t = load_ok(rec.path);
  INFO("regions: " << joined(region_names(*t)));
  REQUIRE(t->regions.size() == 1);
  CHECK(t->regions[0]["name"] == "the lock");
  auto m = open_ok(rec.path);
  CHECK(region_named(*m, "lock") < 0);
  const int lock = region_named(*m, "the lock");
  REQUIRE(lock >= 0);
  const int l0 = launch_of_kernel(*m, "count_under_lock");
  REQUIRE(l0 >= 0);
  check_lock_history(*m, l0, lock, 12);
}

TEST_CASE("a program with no lock and no flag: no automatic region", "[auto][none]") {
  Recorded rec(AUTO_NONE_EXE, "none");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  auto t = load_ok(rec.path);
  INFO("regions: " << joined(region_names(*t)));
  CHECK(t->regions.empty());
  CHECK(t->shared_regions.empty());
  auto m = open_ok(rec.path);
  CHECK(m->regions().empty());
  // It did run: loads of the scale word, atomics and shared memory accesses are in the trace.
  size_t atomics = 0;
  for (size_t i = 0; i < t->event_count(); ++i) atomics += t->event(i).kind == uint8_t(EventKind::Atomic);
  CHECK(atomics == 2);
}

TEST_CASE("a flag fifteen blocks wait for and nobody sets: the hang's word is a flags region", "[auto][hang]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(model) {
      Recorded rec(AUTO_HANG_EXE, std::string("hang-") + model, "", std::string("SYNCLAB_MODEL=") + model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      CHECK(rec.status != 0);  // the launch hangs
      auto t = load_ok(rec.path);
      INFO("regions: " << joined(region_names(*t)));
      REQUIRE(t->regions.size() == 1);  // `ready`, not `done`
      const nlohmann::json& r = t->regions[0];
      CHECK(r["name"] == "ready");
      CHECK(r["kind"] == "flags");
      CHECK(r["bytes"] == 4);
      bool hang = false;
      for (const auto& rep : t->reports) hang = hang || rep.value("kind", std::string()) == "hang";
      CHECK(hang);
      auto m = open_ok(rec.path);
      const int ready = region_named(*m, "ready");
      REQUIRE(ready >= 0);
      const LaunchInfo& L = m->launches().at(0);
      CHECK(L.status == LaunchStatus::Hang);
      // Nobody wrote it: no update, and it reads 0 when the hang ends the launch.
      CHECK(marks(*m, 0, Mark::RegionUpdate).empty());
      const State end = m->state_at(0, L.steps - 1);
      CHECK(end.regions[size_t(ready)].cells.at(0).value == 0);
      CHECK(end.regions[size_t(ready)].cells.at(0).writer_cursor == kNoCursor);
    }
  }
}

TEST_CASE("a flag the loop reads at two instructions: only the hang report names it, and it is a region",
          "[auto][hang_report]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(model) {
      Recorded rec(AUTO_HANG_REPORT_EXE, std::string("hang-report-") + model, "",
                   std::string("SYNCLAB_MODEL=") + model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      CHECK(rec.status != 0);  // the launch hangs
      auto t = load_ok(rec.path);
      INFO("regions: " << joined(region_names(*t)));
      REQUIRE(t->regions.size() == 1);
      const nlohmann::json& r = t->regions[0];
      CHECK(r["name"] == "ready");
      CHECK(r["kind"] == "flags");
      CHECK(r["bytes"] == 4);
      const uint64_t ready_address = r["address"].get<uint64_t>();
      auto m = open_ok(rec.path);
      const LaunchInfo& L = m->launches().at(0);
      CHECK(L.status == LaunchStatus::Hang);
      // The word was found at the hang report, not by polling: the region's snapshot (its value, 5,
      // written when the word is found) comes after every load of it in the trace, which the
      // threads made many times (the two load instructions alternate, so no thread loaded it three
      // times in a row at one instruction).
      uint64_t last_load = kNoCursor, snapshot = kNoCursor;
      size_t loads = 0, snapshots = 0;
      for (uint64_t c = 0; c < L.steps; ++c) {
        const synclab::trace::Event& e = m->event_at(0, c);
        if (e.kind == uint8_t(EventKind::MemAccess) && e.a == ready_address && !(e.aux & synclab::trace::kAuxWrite)) {
          CHECK(e.b == 5);
          last_load = c;
          ++loads;
        }
        if (e.kind == uint8_t(EventKind::RegionUpdate) && (e.aux & synclab::trace::kRegionSnapshot)) {
          snapshot = c;
          ++snapshots;
        }
      }
      CHECK(loads >= 30);  // fifteen threads, each at least twice
      REQUIRE(snapshots == 1);
      REQUIRE(last_load != kNoCursor);
      CHECK(snapshot > last_load);
      bool hang = false;
      for (const auto& rep : t->reports) hang = hang || rep.value("kind", std::string()) == "hang";
      CHECK(hang);
      // From then on the viewer shows the flag at 5, written by nobody.
      const State end = m->state_at(0, L.steps - 1);
      const int ready = region_named(*m, "ready");
      REQUIRE(ready >= 0);
      CHECK(end.regions[size_t(ready)].cells.at(0).value == 5);
      CHECK(end.regions[size_t(ready)].cells.at(0).writer_cursor == kNoCursor);
    }
  }
}

TEST_CASE("an array of eight locks in cudaMalloc memory: one lock-bits region, the whole allocation",
          "[auto][lock_array]") {
  constexpr int kRounds = 2, kLocks = 8, kBlocks = 16;
  Recorded rec(AUTO_LOCK_ARRAY_EXE, "lock-array", std::to_string(kRounds));
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  CHECK(rec.log().find("PASS auto_lock_array") != std::string::npos);
  auto t = load_ok(rec.path);
  INFO("regions: " << joined(region_names(*t)));
  REQUIRE(t->regions.size() == 1);  // the locks; not the counters (another allocation)
  const nlohmann::json& r = t->regions[0];
  // The program's first cudaMalloc, named as hang reports name allocations, all of it.
  CHECK(r["name"] == "cudaMalloc #1 (" + std::to_string(kLocks * 4) + " bytes)");
  CHECK(r["kind"] == "lock-bits");
  CHECK(r["bytes"] == kLocks * 4);
  auto m = open_ok(rec.path);
  const int locks = region_named(*m, r["name"].get<std::string>());
  REQUIRE(locks >= 0);
  REQUIRE(m->regions()[size_t(locks)].cells == uint64_t(kLocks * 32));
  // Every acquisition sets bit 0 of one word (from 0 to 1) and no other cell; the word's release
  // clears it before its next acquisition. Each lock is taken by its two blocks, kRounds times each.
  const auto acquires = marks(*m, 0, Mark::Acquire);
  const auto releases = marks(*m, 0, Mark::Release);
  REQUIRE(acquires.size() == size_t(kBlocks * kRounds));
  REQUIRE(releases.size() == acquires.size());
  std::vector<int> taken(kLocks, 0);
  std::vector<bool> held(kLocks, false);
  State before, after;
  std::vector<uint64_t> events;
  for (uint64_t c : acquires) events.push_back(c);
  for (uint64_t c : releases) events.push_back(c);
  std::sort(events.begin(), events.end());
  for (uint64_t c : events) {
    m->state_at(0, c - 1, &before);
    m->state_at(0, c, &after);
    int changed = -1, n = 0;
    for (uint64_t i = 0; i < uint64_t(kLocks * 32); ++i)
      if (before.regions[size_t(locks)].cells[i].value != after.regions[size_t(locks)].cells[i].value) {
        changed = int(i);
        ++n;
      }
    INFO("event " << c);
    REQUIRE(n == 1);
    REQUIRE(changed % 32 == 0);  // bit 0 of a word
    const int k = changed / 32;
    const bool acquire = std::binary_search(acquires.begin(), acquires.end(), c);
    CHECK(held[size_t(k)] != acquire);  // taken when free, released when held
    held[size_t(k)] = acquire;
    if (acquire) ++taken[size_t(k)];
  }
  for (int k = 0; k < kLocks; ++k) {
    INFO("lock " << k);
    CHECK(taken[size_t(k)] == 2 * kRounds);
    CHECK_FALSE(held[size_t(k)]);
  }
}
