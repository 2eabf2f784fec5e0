// The host row: the host's reads and writes of a named region of mapped pinned memory while a
// kernel runs (HostAccess events, noted by the simulator's host watch, or found by change detection
// where the watch is off), in the trace and in the viewer's model. programs/viz_host.cu plays
// ping-pong: the host stores round k into ping (pingpong[0]), the kernel waits for it and stores
// k * 10 into pong (pingpong[1]), which the host polls. The expected values come from that protocol
// (round k: ping k, pong k * 10), not from a recorded run.
#include <synclab/trace_analysis.h>
#include <synclab/trace_export.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "viz_test_util.h"

namespace {

using namespace vt;
namespace tr = synclab::trace;

constexpr int kRounds = 5;

// Whether the simulator's host watch can see the host's reads on this machine: it needs memory
// protection keys (a CPU with PKU and a kernel that allows pkey_alloc). Without them the trace
// records the host's writes only, found by change detection, and says why in its header.
bool host_reads_watched() {
  const char* no_keys = std::getenv("SYNCLAB_NO_PKEYS");  // (the simulator then behaves as without)
  if (no_keys && std::string(no_keys) == "1") return false;
  const long key = syscall(SYS_pkey_alloc, 0, 0);
  if (key < 0) return false;
  syscall(SYS_pkey_free, key);
  return true;
}
const char* kNoKeys = "writes only (this CPU or kernel has no memory protection keys)";

struct Ping {
  size_t index;  // global event index
  uint64_t time, value;
};

// The HostAccess events of launch 0 that write (reads: false: that read), and the device's stores
// to an address (value -> event index).
std::vector<Ping> host_accesses(const tr::Trace& t, const tr::Launch& L, bool writes = true) {
  std::vector<Ping> out;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const Event& e = t.event(i);
    if (e.kind == uint8_t(EventKind::HostAccess) && bool(e.aux & tr::kAuxWrite) == writes) out.push_back({i, e.time, e.b});
  }
  return out;
}

std::map<uint64_t, size_t> device_stores(const tr::Trace& t, const tr::Launch& L, uint64_t addr) {
  std::map<uint64_t, size_t> out;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const Event& e = t.event(i);
    if (e.kind == uint8_t(EventKind::MemAccess) && (e.aux & tr::kAuxWrite) && e.a == addr) out.emplace(e.b, i);
  }
  return out;
}

}  // namespace

TEST_CASE("host: the host's stores to a named mapped region while a kernel polls it are recorded in order",
          "[viz][host]") {
  // The host watch on (the default) and off (change detection): the host's writes are the same.
  for (const char* memory : {"sc", "relaxed", "sc-no-watch"}) {
    DYNAMIC_SECTION("SYNCLAB_MEMORY=" << memory) {
      const bool no_watch = std::string(memory) == "sc-no-watch";
      Recorded rec(VIZ_HOST_EXE, std::string("host-") + memory, "its", std::to_string(kRounds),
                   std::string("SYNCLAB_SCHED=rr SYNCLAB_MEMORY=") + (no_watch ? "sc SYNCLAB_HOST_READS=0" : memory));
      INFO(rec.log());
      REQUIRE(rec.status == 0);
      REQUIRE(!rec.path.empty());
      std::string err;
      std::unique_ptr<tr::Trace> t = tr::load(rec.path, &err);
      INFO(err);
      REQUIRE(t);
      REQUIRE(t->launches.size() == 1);
      REQUIRE(t->regions.size() == 1);
      const uint64_t ping = t->regions[0]["address"].get<uint64_t>(), pong = ping + 4;
      const tr::Launch& L = t->launches[0];
      const std::vector<Ping> host = host_accesses(*t, L);
      // One host write a round, to ping, with the round's number, in order.
      REQUIRE(host.size() == size_t(kRounds));
      for (int k = 1; k <= kRounds; ++k) {
        const Event& e = t->event(host[size_t(k - 1)].index);
        CHECK(e.a == ping);
        CHECK(e.b == uint64_t(k));
        CHECK(e.lane == tr::kAllLanes);
        CHECK(e.warp == 0);
        CHECK((e.aux & tr::kAuxWrite) != 0);
        CHECK(tr::MemSpace(e.aux & tr::kAuxSpaceMask) == tr::MemSpace::HostMapped);
        CHECK(((e.aux >> tr::kAuxSizeShift) & 7) == 2);  // 4 bytes
      }
      // Each comes after the kernel's answer to the round before (pong = -1, then (k-1) * 10)
      // and before its answer to this round: the ping-pong, in the trace's order.
      const std::map<uint64_t, size_t> answers = device_stores(*t, L, pong);
      REQUIRE(answers.count(0xffffffffull));
      for (int k = 1; k <= kRounds; ++k) {
        const uint64_t before = k == 1 ? 0xffffffffull : uint64_t((k - 1) * 10);
        REQUIRE(answers.count(before));
        REQUIRE(answers.count(uint64_t(k * 10)));
        CHECK(answers.at(before) < host[size_t(k - 1)].index);
        CHECK(host[size_t(k - 1)].index < answers.at(uint64_t(k * 10)));
      }
      // The kernel's own stores (to pong) are never taken for the host's.
      for (const Ping& p : host) CHECK(t->event(p.index).a != pong);
      // The summary counts them as their own kind, and the host is no warp.
      const tr::LaunchStats s = tr::launch_stats(*t, 0);
      CHECK(s.host_writes == uint64_t(kRounds));
      CHECK(s.host_malformed == 0);
      CHECK(s.warps == 1);
      const std::string recorded = t->header.value("host_accesses", std::string());
      if (no_watch) {
        CHECK(recorded == "writes only (SYNCLAB_HOST_READS=0)");
        CHECK(s.host_reads == 0);
      } else if (!host_reads_watched()) {
        CHECK(recorded == kNoKeys);
        CHECK(s.host_reads == 0);
      } else {
        CHECK(recorded == "reads and writes");
      }
      CHECK(s.by_kind[size_t(EventKind::HostAccess)] == s.host_writes + s.host_reads);
    }
  }
}

TEST_CASE("host: the host's reads of the polled word are recorded, each after the device store it returns",
          "[viz][host]") {
  for (const char* memory : {"sc", "relaxed"}) {
    DYNAMIC_SECTION("SYNCLAB_MEMORY=" << memory) {
      Recorded rec(VIZ_HOST_EXE, std::string("host-reads-") + memory, "its", std::to_string(kRounds),
                   std::string("SYNCLAB_SCHED=rr SYNCLAB_MEMORY=") + memory);
      INFO(rec.log());
      REQUIRE(rec.status == 0);
      std::string err;
      std::unique_ptr<tr::Trace> t = tr::load(rec.path, &err);
      INFO(err);
      REQUIRE(t);
      if (!host_reads_watched()) {
        // (the reads cannot be seen here: the trace says so and has none)
        CHECK(t->header.value("host_accesses", std::string()) == kNoKeys);
        CHECK(tr::launch_stats(*t, 0).host_reads == 0);
        WARN("no memory protection keys on this machine: the host's reads are not recorded, not checked");
        continue;
      }
      REQUIRE(t->header.value("host_accesses", std::string()) == "reads and writes");
      const uint64_t ping = t->regions[0]["address"].get<uint64_t>(), pong = ping + 4;
      const tr::Launch& L = t->launches[0];
      const std::vector<Ping> reads = host_accesses(*t, L, /*writes=*/false);
      const std::vector<Ping> writes = host_accesses(*t, L, /*writes=*/true);
      REQUIRE(writes.size() == size_t(kRounds));
      const std::map<uint64_t, size_t> answers = device_stores(*t, L, pong);
      // The host polls only pong: every read is of pong, 4 bytes, in mapped memory.
      for (const Ping& r : reads) {
        const Event& e = t->event(r.index);
        CHECK(e.a == pong);
        CHECK(((e.aux >> tr::kAuxSizeShift) & 7) == 2);
        CHECK(tr::MemSpace(e.aux & tr::kAuxSpaceMask) == tr::MemSpace::HostMapped);
        CHECK(e.warp == 0);
        CHECK(e.lane == tr::kAllLanes);
      }
      // A read returns a value the device stored before it (or pong's 0 before the kernel's first
      // store), never one it stores later: the trace's order is the order things happened.
      for (const Ping& r : reads) {
        if (r.value == 0) {
          REQUIRE(answers.count(0xffffffffull));
          CHECK(r.index < answers.at(0xffffffffull));
          continue;
        }
        INFO("host read of pong = " << int32_t(r.value) << " at event " << r.index);
        REQUIRE(answers.count(r.value));
        CHECK(answers.at(r.value) < r.index);
      }
      // The host reads every answer that lets it go on: -1 before its first ping, and k * 10
      // between its ping k and its ping k + 1. Polling reads that return the same value again are
      // left out, so each of these values is read exactly once. The last answer is the kernel's last
      // store: the host may read it after the kernel ended (not recorded) or just before.
      std::map<uint64_t, std::vector<size_t>> read_at;
      for (const Ping& r : reads) read_at[r.value].push_back(r.index);
      REQUIRE(read_at.count(0xffffffffull));
      CHECK(read_at.at(0xffffffffull).size() == 1);
      CHECK(read_at.at(0xffffffffull)[0] < writes[0].index);
      for (int k = 1; k <= kRounds; ++k) {
        INFO("round " << k);
        if (k == kRounds && !read_at.count(uint64_t(k * 10))) break;
        REQUIRE(read_at.count(uint64_t(k * 10)));
        CHECK(read_at.at(uint64_t(k * 10)).size() == 1);
        const size_t at = read_at.at(uint64_t(k * 10))[0];
        CHECK(writes[size_t(k - 1)].index < at);
        if (k < kRounds) CHECK(at < writes[size_t(k)].index);
      }
      // No two reads in a row return the same value (the polls between are left out).
      for (size_t i = 1; i < reads.size(); ++i) CHECK(reads[i].value != reads[i - 1].value);
      const tr::LaunchStats s = tr::launch_stats(*t, 0);
      CHECK(s.host_reads == reads.size());
    }
  }
}

TEST_CASE("host: the host's stores to a named region of managed memory are recorded as global memory",
          "[viz][host]") {
  Recorded rec(VIZ_HOST_EXE, "host-managed", "its", std::to_string(kRounds) + " managed", "SYNCLAB_SCHED=rr");
  INFO(rec.log());
  REQUIRE(rec.status == 0);
  std::string err;
  std::unique_ptr<tr::Trace> t = tr::load(rec.path, &err);
  INFO(err);
  REQUIRE(t);
  const uint64_t ping = t->regions.at(0)["address"].get<uint64_t>();
  const std::vector<Ping> host = host_accesses(*t, t->launches.at(0));
  REQUIRE(host.size() == size_t(kRounds));
  for (int k = 1; k <= kRounds; ++k) {
    const Event& e = t->event(host[size_t(k - 1)].index);
    CHECK(e.a == ping);
    CHECK(e.b == uint64_t(k));
    CHECK(tr::MemSpace(e.aux & tr::kAuxSpaceMask) == tr::MemSpace::Global);
  }
  // its reads of pong, in managed memory too (where the host watch can see reads)
  const std::vector<Ping> reads = host_accesses(*t, t->launches.at(0), /*writes=*/false);
  CHECK(reads.empty() != host_reads_watched());
  for (const Ping& p : reads) CHECK(t->event(p.index).a == ping + 4);
}

TEST_CASE("host: a kernel that writes the mapped region itself gives no host access (no false alarm)",
          "[viz][host]") {
  Recorded rec(VIZ_HOST_EXE, "host-device", "its", std::to_string(kRounds) + " device", "SYNCLAB_SCHED=rr");
  INFO(rec.log());
  REQUIRE(rec.status == 0);
  std::unique_ptr<Model> m = open_ok(rec.path);
  REQUIRE(m->launches().size() == 1);
  CHECK(m->host_accesses(0).empty());
  // the kernel's stores to both words are RegionUpdates: ping went 1..rounds on the device
  const int r = region_named(*m, "pingpong");
  REQUIRE(r >= 0);
  const State s = m->state_at(0, m->launches()[0].steps - 1);
  CHECK(s.regions[size_t(r)].cells[0].value == uint64_t(kRounds));
  CHECK_FALSE(s.regions[size_t(r)].cells[0].writer_host);
  CHECK(s.host_accesses == 0);
}

TEST_CASE("host: the model's host row follows the host's accesses and the region shows the values written",
          "[viz][host]") {
  Recorded rec(VIZ_HOST_EXE, "host-model", "its", std::to_string(kRounds), "SYNCLAB_SCHED=rr");
  INFO(rec.log());
  REQUIRE(rec.status == 0);
  std::unique_ptr<Model> m = open_ok(rec.path);
  CHECK(m->warning().empty());
  const LaunchInfo& L = m->launches()[0];
  const std::vector<uint32_t>& all = m->host_accesses(0);  // reads and writes, in order
  std::vector<uint32_t> host;                               // the writes (to ping)
  for (uint32_t c : all)
    if (m->event_at(0, c).aux & tr::kAuxWrite) host.push_back(c);
  REQUIRE(host.size() == size_t(kRounds));
  if (host_reads_watched()) CHECK(all.size() > host.size());  // the host's reads of pong
  else CHECK(all.size() == host.size());
  CHECK(m->active_warps(0) == std::vector<uint32_t>{0});  // the host's events name no warp
  const int r = region_named(*m, "pingpong");
  REQUIRE(r >= 0);
  for (size_t i = 0; i < all.size(); ++i) {  // a read changes no cell; the row counts it
    const uint64_t c = all[i];
    if (m->event_at(0, c).aux & tr::kAuxWrite) continue;
    uint64_t cell = 99;
    CHECK(m->host_access_region(0, c, &cell) == r);
    CHECK(cell == 1);
    const State at = m->state_at(0, c), before = m->state_at(0, c - 1);
    CHECK(at.host_accesses == uint64_t(i + 1));
    CHECK(at.last_host_cursor == c);
    CHECK(at.regions[size_t(r)].cells[1].value == before.regions[size_t(r)].cells[1].value);
    CHECK(at.regions[size_t(r)].cells[1].writer_cursor == before.regions[size_t(r)].cells[1].writer_cursor);
    CHECK(at.regions[size_t(r)].cells[1].value == (m->event_at(0, c).b & 0xffffffffull));  // it read what is there
  }
  auto accesses_up_to = [&](uint64_t c) { return uint64_t(std::upper_bound(all.begin(), all.end(), c) - all.begin()); };
  for (int k = 1; k <= kRounds; ++k) {
    const uint64_t c = host[size_t(k - 1)];
    CHECK(m->event_at(0, c).kind == uint8_t(EventKind::HostAccess));
    uint64_t cell = 99;
    CHECK(m->host_access_region(0, c, &cell) == r);
    CHECK(cell == 0);
    const State at = m->state_at(0, c);
    CHECK(at.host_accesses == accesses_up_to(c));
    CHECK(at.last_host_cursor == c);
    const CellView& ping = at.regions[size_t(r)].cells[0];
    CHECK(ping.value == uint64_t(k));
    CHECK(ping.writer_host);
    CHECK(ping.writer_cursor == c);
    CHECK(ping.writer_warp == kNoWarp);
    CHECK(ping.writer_lane == kNoLane);
    // just before it: the previous round's state (pong answered k - 1)
    const State before = m->state_at(0, c - 1);
    CHECK(before.host_accesses == accesses_up_to(c) - 1);
    CHECK(before.regions[size_t(r)].cells[0].value == uint64_t(k - 1));
    CHECK(before.regions[size_t(r)].cells[1].value == (k == 1 ? 0xffffffffull : uint64_t((k - 1) * 10)));
    CHECK_FALSE(before.regions[size_t(r)].cells[1].writer_host);
  }
  // A Player stepping through gives the same host row as state_at.
  Player p(*m, 0);
  p.seek(host[2]);
  State s;
  p.state(&s);
  CHECK(s.host_accesses == accesses_up_to(host[2]));
  p.step(-1);
  p.state(&s);
  CHECK(s.host_accesses == accesses_up_to(host[2]) - 1);
  // most:pingpong counts the host's writes too: both words are first non-zero at the host's first
  // ping (the kernel's -1 is already in pong).
  CHECK(m->peak(0, {r}, Model::PeakMeasure::NonZero) == host[0]);
  (void)L;
}

TEST_CASE("host: malformed host access events are skipped with a message; good ones set their cells",
          "[viz][host]") {
  using tr::MemSpace;
  const std::string path = temp_path("host-events");
  {
    tr::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "host"}, {"backend", "sim"}}, false, {}, &err));
    w.region(tr::region_json(0, "box", "array", 0x1000, 16, 32, {4}));
    w.region(tr::region_json(1, "locks", "lock-bits", 0x2000, 4, 1, {32}));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    auto aux = [](bool write, unsigned log2, MemSpace sp) {
      return uint16_t(uint16_t(sp) | (write ? tr::kAuxWrite : 0) | (log2 << tr::kAuxSizeShift));
    };
    w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 1));                                         // 0
    w.event(ev(1, 0, EventKind::WarpStep, 0xff, 0, 1, 1));                                            // 1
    w.event(ev(2, 0, EventKind::HostAccess, 0xff, aux(true, 2, MemSpace::HostMapped), 0x1008, 7));    // 2: box[2] = 7
    w.event(ev(2, 0, EventKind::HostAccess, 0xff, aux(true, 4, MemSpace::HostMapped), 0x1000, 1));    // 3: 16 bytes
    w.event(ev(2, 0, EventKind::HostAccess, 0xff, aux(false, 2, MemSpace::HostMapped), 0x1000, 1));   // 4: a read of box[0]
    w.event(ev(2, 0, EventKind::HostAccess, 0xff, aux(true, 2, MemSpace::Shared), 0x1000, 1));        // 5: shared
    w.event(ev(3, 0, EventKind::HostAccess, 0xff, aux(true, 0, MemSpace::Global), 0x2001, 0x81));     // 6: bits 8, 15
    w.event(ev(3, 0, EventKind::HostAccess, 0xff, aux(true, 3, MemSpace::HostMapped), 0x9000, 5));    // 7: no region
    w.event(ev(4, 0, EventKind::HostAccess, 0xff, aux(true, 1, MemSpace::HostMapped), 0x1004, 0xbeef)); // 8: half of box[1]
    w.event(ev(5, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));                                           // 9
    w.close();
  }
  // The trace library reads it (a kind it counts), the model skips the two malformed ones.
  std::string err;
  std::unique_ptr<tr::Trace> t = tr::load(path, &err);
  INFO(err);
  REQUIRE(t);
  const tr::LaunchStats st = tr::launch_stats(*t, 0);
  CHECK(st.by_kind[size_t(EventKind::HostAccess)] == 7);
  CHECK(st.host_writes == 4);
  CHECK(st.host_reads == 1);
  CHECK(st.host_malformed == 2);
  std::ostringstream summary;
  tr::write_summary(*t, summary);
  CHECK(summary.str().find("host accesses: 4 writes, 1 reads (the host's, to named mapped or managed memory); 2 "
                           "malformed host access event(s)") != std::string::npos);
  std::unique_ptr<Model> m = Model::open(path, &err);
  REQUIRE(m);
  INFO(m->warning());
  CHECK(m->warning().find("2 host access event(s) (HostAccess) are not a host read or write of 1 to 8 bytes to "
                          "global or host-mapped memory; they were skipped") != std::string::npos);
  CHECK(m->warning().find("events name a warp") == std::string::npos);
  CHECK(m->host_accesses(0) == std::vector<uint32_t>{2, 4, 6, 7, 8});
  const int box = region_named(*m, "box"), locks = region_named(*m, "locks");
  const State s = m->state_at(0, 9);
  CHECK(s.host_accesses == 5);
  CHECK(s.last_host_cursor == 8);
  CHECK(s.regions[size_t(box)].cells[2].value == 7);
  CHECK(s.regions[size_t(box)].cells[2].writer_host);
  CHECK(s.regions[size_t(box)].cells[0].value == 0);  // the malformed writes and the read changed nothing
  CHECK(s.regions[size_t(box)].cells[0].writer_cursor == kNoCursor);
  CHECK(s.regions[size_t(box)].cells[1].value == 0xbeef);
  for (uint64_t b = 0; b < 32; ++b) {
    INFO("bit " << b);
    CHECK(s.regions[size_t(locks)].cells[b].value == uint64_t(b == 8 || b == 15));
    CHECK(s.regions[size_t(locks)].cells[b].owner_cursor == kNoCursor);  // the host holds no lock
  }
  uint64_t cell = 0;
  CHECK(m->host_access_region(0, 6, &cell) == locks);
  CHECK(cell == 8);
  CHECK(m->host_access_region(0, 7, &cell) == -1);
  CHECK(m->host_access_region(0, 3, &cell) == -1);
  CHECK(m->active_warps(0) == std::vector<uint32_t>{0});
  std::remove(path.c_str());
}
