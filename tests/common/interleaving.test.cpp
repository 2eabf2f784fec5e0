// The interleaving of a report (synclab/interleaving.h) on hand-built traces whose order, values
// and synchronization are known because the test writes them; and `synclab-trace interleaving`
// on good and bad input (exit status and message, never a crash).
#include "trace_test_util.h"

#include <synclab/interleaving.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>
#include <sys/wait.h>

#include <synclab/catch.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace synclab::trace;
using tt::ev;
using tt::step;

namespace {

constexpr uint64_t kX = 0x1000;      // the racy word (region "x" is 4 ints from here)
constexpr uint64_t kFlag = 0x3000;   // a flag read with an acquire load
constexpr uint64_t kOther = 0x2000;  // memory nobody races on
constexpr uint32_t kLoadLine = 20, kStoreLine = 22, kFenceLine = 21;

uint16_t with_order(uint16_t aux, MemOrder o) { return uint16_t(aux | (uint16_t(o) << kAuxOrderShift)); }

// A launch of 2 blocks x 64 threads (2 warps per block: warps 0, 1 are block 0; 2, 3 block 1).
// Thread A = block 0 thread 3 (warp 0 lane 3), thread B = block 1 thread 5 (warp 2 lane 5).
// What the test knows, in event order:
//   A stores 7 to x before a barrier of block 0 (outside the window)
//   barrier 0 of block 0 released
//   A loads x (7); B loads shared memory offset 0x1000 (not x: another space); B loads x (b_read)
//   A fences; an unrelated store to kOther by warp 1; B's acquire load of the flag
//   A stores 8 to x  -> report 0 (write-after-read: A's store races with B's load)
//   B stores b_wrote  -> report 1 (write-write)
//   warp 3 lane 1 loads x (after the window of report 0)
// Every access comes after its WarpStep, with the same time, as the simulator writes them.
struct Built {
  std::vector<Event> events;  // as written, launch 0 (index = cursor)
  size_t a_store_early = 0, a_load = 0, b_load = 0, a_store = 0, b_store = 0, late_load = 0;
  size_t barrier = 0, fence = 0, acquire = 0, shared_load = 0, other_store = 0;
  size_t report0 = 0, report1 = 0;
};

Built lost_update_events(uint64_t b_read, uint64_t b_wrote) {
  Built b;
  auto& v = b.events;
  uint64_t t = 0;
  auto mem = [&](uint32_t warp, uint8_t lane, bool write, uint64_t addr, uint64_t value, uint32_t line, InstrClass cls,
                 MemSpace space = MemSpace::Global, MemOrder order = MemOrder::Plain) {
    ++t;
    v.push_back(step(t, warp, 1u << lane, 7, line, cls));
    const size_t at = v.size();
    v.push_back(ev(t, warp, EventKind::MemAccess, lane, with_order(tt::mem_aux(write, 2, space), order), addr, value));
    return at;
  };
  v.push_back(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 4));
  b.a_store_early = mem(0, 3, true, kX, 7, 9, InstrClass::Store);
  ++t;
  v.push_back(step(t, 0, 0xffffffffu, 8, 10, InstrClass::Barrier));
  v.push_back(ev(t, 0, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
  ++t;
  v.push_back(step(t, 1, 0xffffffffu, 8, 10, InstrClass::Barrier));
  v.push_back(ev(t, 1, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
  b.barrier = v.size();
  v.push_back(ev(t, 0, EventKind::BarrierRelease, kAllLanes, 0, 64, 0));
  b.a_load = mem(0, 3, false, kX, 7, kLoadLine, InstrClass::Load);
  b.shared_load = mem(2, 5, false, kX, 99, 30, InstrClass::Load, MemSpace::Shared);
  b.b_load = mem(2, 5, false, kX, b_read, kLoadLine, InstrClass::Load);
  ++t;
  b.fence = v.size();
  v.push_back(step(t, 0, 1u << 3, 9, kFenceLine, InstrClass::Fence));
  b.other_store = mem(1, 0, true, kOther, 9, 40, InstrClass::Store);
  b.acquire = mem(2, 5, false, kFlag, 1, 41, InstrClass::Load, MemSpace::Global, MemOrder::Acquire);
  b.a_store = mem(0, 3, true, kX, 8, kStoreLine, InstrClass::Store);
  ++t;
  b.report0 = v.size();
  v.push_back(ev(t, 0, EventKind::Report, 3, uint16_t(ReportKindCode::Race), 0, kStoreLine));
  b.b_store = mem(2, 5, true, kX, b_wrote, kStoreLine, InstrClass::Store);
  ++t;
  b.report1 = v.size();
  v.push_back(ev(t, 2, EventKind::Report, 5, uint16_t(ReportKindCode::Race), 1, kStoreLine));
  b.late_load = mem(3, 1, false, kX, b_wrote, 50, InstrClass::Load);
  v.push_back(ev(t + 1, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
  return b;
}

nlohmann::json party(int block, int warp_in_block, int lane, int line, const char* access) {
  return {{"block", block},         {"warp", warp_in_block}, {"lane", lane},    {"line", line},
          {"file", "/src/race.cu"}, {"ptx_line", 0},         {"access", access}};
}

// Writes the trace: reports 0 and 1 (races, as above), 2 of an unknown kind naming nothing,
// 3 a hang whose text names the polled address, 4 a deadlock naming no address.
void write_trace(const std::string& path, const Built& b, int b_party_lane) {
  Writer w;
  std::string err;
  REQUIRE(w.open(path, {{"program", "race-demo"}, {"model", "its"}, {"scheduler", "rr"}, {"seed", 1}}, false,
                 WriterOptions{}, &err));
  w.region(region_json(0, "x", "array", kX, 16, 32, {4}));
  w.kernel({{"name", "k"},
            {"launch", 0},
            {"grid", {2, 1, 1}},
            {"block", {64, 1, 1}},
            {"warps_per_block", 2},
            {"files", {"/src/race.cu"}}});
  const nlohmann::json reports[] = {
      {{"kind", "race"},
       {"severity", "error"},
       {"title", "write-after-read race on global memory"},
       {"text", "address: 0x1000, byte 0 of x"},
       {"launch", 0},
       {"parties", {party(0, 0, 3, kStoreLine, "write"), party(1, 0, b_party_lane, kLoadLine, "read")}}},
      {{"kind", "race"},
       {"severity", "error"},
       {"title", "write-write race on global memory"},
       {"launch", 0},
       {"parties", {party(1, 0, b_party_lane, kStoreLine, "write"), party(0, 0, 3, kStoreLine, "write")}}},
      {{"kind", "mystery"}, {"title", "something odd"}, {"text", "no address here"}, {"launch", 0}},
      {{"kind", "hang"},
       {"title", "lanes spin"},
       {"text", "block 0 warp 0: lane 3 spins at race.cu:20, polling 0x1000 (x + 0)"},
       {"launch", 0},
       {"parties", {party(0, 0, 3, kLoadLine, "spinning")}}},
      {{"kind", "deadlock"}, {"title", "every thread waits"}, {"text", "all blocked at a barrier"}, {"launch", 0}},
  };
  uint32_t next = 0;
  for (size_t i = 0; i < b.events.size(); ++i) {
    const Event& e = b.events[i];
    // Report chunks come before the Report event that names them; the other three at the end.
    if (e.kind == uint8_t(EventKind::Report)) REQUIRE(w.report(reports[next++]) == e.a);
    if (e.kind == uint8_t(EventKind::KernelEnd))
      for (; next < 5; ++next) {
        const uint32_t id = w.report(reports[next]);
        w.event(ev(e.time, 0, EventKind::Report, kAllLanes, 0, id, 0));
      }
    w.event(e);
  }
  w.close();
}

struct Fixture {
  tt::TempFile file{"race.trace"};
  Built b;
  std::unique_ptr<Trace> t;
  explicit Fixture(uint64_t b_read = 7, uint64_t b_wrote = 8, int b_party_lane = 5) {
    b = lost_update_events(b_read, b_wrote);
    write_trace(file.path, b, b_party_lane);
    std::string err;
    t = load(file.path, &err);
    INFO(err);
    REQUIRE(t);
  }
  Interleaving run(const InterleavingRequest& req) {
    Interleaving il;
    std::string err;
    const bool ok = find_interleaving(*t, req, &il, &err);
    INFO(err);
    REQUIRE(ok);
    return il;
  }
  std::string fail(const InterleavingRequest& req) {
    Interleaving il;
    std::string err;
    CHECK_FALSE(find_interleaving(*t, req, &il, &err));
    return err;
  }
};

bool is_access(const InterleavingItem& it) {
  return it.kind == InterleavingItemKind::Load || it.kind == InterleavingItemKind::Store ||
         it.kind == InterleavingItemKind::Atomic;
}

// Cursors of the items of the given kinds, in order.
std::vector<uint64_t> cursors(const Interleaving& il, bool accesses) {
  std::vector<uint64_t> out;
  for (const InterleavingItem& it : il.items)
    if (is_access(it) == accesses && it.kind != InterleavingItemKind::Report) out.push_back(it.cursor);
  return out;
}

const InterleavingItem& at_cursor(const Interleaving& il, uint64_t c) {
  for (const InterleavingItem& it : il.items)
    if (it.cursor == c) return it;
  FAIL("no item at event " << c);
  return il.items.front();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Opens a trace of one launch of kernel k, one block of one warp, and begins the launch.
void begin_one_warp(Writer& w, const std::string& path, const char* program) {
  std::string err;
  REQUIRE(w.open(path, {{"program", program}}, false, WriterOptions{}, &err));
  w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
}

}  // namespace

TEST_CASE("the first race report: both loads before both stores, with the synchronization between", "[interleaving]") {
  Fixture f;
  const Interleaving il = f.run({});
  CHECK(il.picked_default);
  CHECK(il.report == 0);
  CHECK(il.race_reports == 2);
  CHECK(il.launch == 0);
  CHECK(il.address == kX);
  CHECK(il.bytes == 4);
  CHECK(contains(il.location, "region \"x\" element 0"));
  // The window: from the barrier to B's store; A's early store and the late load are outside,
  // the shared-memory load and the store elsewhere are not about x.
  CHECK(cursors(il, true) == std::vector<uint64_t>{f.b.a_load, f.b.b_load, f.b.a_store, f.b.b_store});
  CHECK(il.hidden_before == 1);
  CHECK(il.hidden_after == 1);
  CHECK(cursors(il, false) == std::vector<uint64_t>{f.b.barrier, f.b.fence, f.b.acquire});
  // Who, what, which value, where.
  const InterleavingItem& al = at_cursor(il, f.b.a_load);
  CHECK(al.kind == InterleavingItemKind::Load);
  CHECK(al.block == 0);
  CHECK(al.thread == 3);
  CHECK(al.value == 7);
  CHECK(al.line == kLoadLine);
  CHECK(al.file == "/src/race.cu");
  const InterleavingItem& bs = at_cursor(il, f.b.b_store);
  CHECK(bs.kind == InterleavingItemKind::Store);
  CHECK(bs.block == 1);
  CHECK(bs.thread == 5);
  CHECK(bs.value == 8);
  CHECK(bs.line == kStoreLine);
  CHECK(at_cursor(il, f.b.acquire).what == "acquire load");
  CHECK(at_cursor(il, f.b.acquire).address == kFlag);
  CHECK(at_cursor(il, f.b.fence).kind == InterleavingItemKind::Fence);
  CHECK(at_cursor(il, f.b.fence).line == kFenceLine);
  CHECK(at_cursor(il, f.b.barrier).kind == InterleavingItemKind::Barrier);
  // The report's two accesses: B's load and A's store.
  REQUIRE(il.racing[0] >= 0);
  REQUIRE(il.racing[1] >= 0);
  CHECK(il.items[size_t(il.racing[0])].cursor == f.b.b_load);
  CHECK(il.items[size_t(il.racing[1])].cursor == f.b.a_store);
  // The explanation follows from the values: both read 7, each stored 8.
  CHECK(contains(il.explanation, "block 0 thread 3 and block 1 thread 5 both read 7 before either stored"));
  CHECK(contains(il.explanation, "each stored 8, so one increment is lost"));
  CHECK(contains(il.explanation, "not 9"));
}

TEST_CASE("the write-write report marks both stores, and --all lists the whole launch", "[interleaving]") {
  Fixture f;
  InterleavingRequest req;
  req.report = 1;
  Interleaving il = f.run(req);
  CHECK_FALSE(il.picked_default);
  REQUIRE(il.racing[1] >= 0);
  CHECK(il.items[size_t(il.racing[0])].cursor == f.b.a_store);
  CHECK(il.items[size_t(il.racing[1])].cursor == f.b.b_store);
  CHECK(cursors(il, true) == std::vector<uint64_t>{f.b.a_load, f.b.b_load, f.b.a_store, f.b.b_store});
  req.all = true;
  il = f.run(req);
  CHECK(cursors(il, true) ==
        std::vector<uint64_t>{f.b.a_store_early, f.b.a_load, f.b.b_load, f.b.a_store, f.b.b_store, f.b.late_load});
  CHECK(il.hidden_before == 0);
  CHECK(il.hidden_after == 0);
}

TEST_CASE("no lost-update explanation when the values do not say so", "[interleaving]") {
  SECTION("the two loads read different values") {
    // Not two updates computed from one value, whatever the order.
    Fixture f(/*b_read=*/8, /*b_wrote=*/9);
    CHECK(f.run({}).explanation.empty());
  }
  SECTION("same value read, different values stored: the later store wins") {
    Fixture f(/*b_read=*/7, /*b_wrote=*/12);
    const std::string e = f.run({}).explanation;
    CHECK(contains(e, "both read 7 before either stored"));
    CHECK(contains(e, "they stored 8, 12 in that order"));
    CHECK(contains(e, "block 1 thread 5's 12"));
  }
}

TEST_CASE("a party's lane that made no access falls back to its warp's lane that did", "[interleaving]") {
  Fixture f(7, 8, /*b_party_lane=*/9);
  const Interleaving il = f.run({});
  REQUIRE(il.racing[0] >= 0);
  CHECK(il.items[size_t(il.racing[0])].cursor == f.b.b_load);
  CHECK(il.items[size_t(il.racing[0])].lane == 5);
}

TEST_CASE("addresses: a race on them gives the window, and shared memory is its own space", "[interleaving]") {
  Fixture f;
  InterleavingRequest req;
  req.address = "0x1002";  // inside x[0]: its race is found, the bytes from there on
  Interleaving il = f.run(req);
  CHECK(il.report == 0);
  CHECK(il.address == 0x1002);
  CHECK(il.bytes == 2);
  CHECK(cursors(il, true) == std::vector<uint64_t>{f.b.a_load, f.b.b_load, f.b.a_store, f.b.b_store});
  req.address = std::to_string(kX);  // decimal
  CHECK(f.run(req).address == kX);
  req.address = "shared:0x1000";
  il = f.run(req);
  CHECK(il.block == 1);
  CHECK(il.report == -1);
  CHECK(cursors(il, true) == std::vector<uint64_t>{f.b.shared_load});
  CHECK(il.items.front().value == 99);
}

TEST_CASE("reports that are not races: by the address their text names, or a clear refusal", "[interleaving]") {
  Fixture f;
  InterleavingRequest req;
  req.report = 3;  // a hang polling 0x1000
  Interleaving il = f.run(req);
  CHECK(il.report_kind == "hang");
  CHECK(il.address == kX);
  CHECK(il.racing[0] == -1);
  CHECK_FALSE(cursors(il, true).empty());
  req.report = 4;  // a deadlock: no address
  std::string err = f.fail(req);
  CHECK(contains(err, "report 4 (deadlock"));
  CHECK(contains(err, "names no memory address"));
  CHECK(contains(err, "--address"));
  req.address = "0x1000";  // with one it works
  CHECK(f.run(req).address == kX);
  req = {};
  req.report = 2;  // an unknown kind
  err = f.fail(req);
  CHECK(contains(err, "report 2 (mystery"));
  CHECK(contains(err, "--address"));
}

TEST_CASE("bad requests are refused with what was wrong", "[interleaving]") {
  Fixture f;
  InterleavingRequest req;
  req.report = 9;
  std::string err = f.fail(req);
  CHECK(contains(err, "there is no report 9"));
  CHECK(contains(err, "0, 1, 2, 3, 4"));
  req = {};
  req.address = "0x9999";
  err = f.fail(req);
  CHECK(contains(err, "address 0x9999 is outside every region"));
  CHECK(contains(err, "region \"x\" 0x1000 (+16 bytes)"));
  CHECK(contains(err, "accessed: 0x1000 (+4 bytes)"));
  req.address = "0x1008";  // x[2]: a region, but nothing touched it
  err = f.fail(req);
  CHECK(contains(err, "nothing accessed address 0x1008"));
  CHECK(contains(err, "element 2"));
  req.address = "banana";
  err = f.fail(req);
  CHECK(contains(err, "'banana' is not an address"));
  uint64_t a = 0;
  bool shared = false;
  CHECK(parse_interleaving_address("0x7F00", &a, &shared, &err));
  CHECK(a == 0x7f00);
  CHECK_FALSE(shared);
  CHECK(parse_interleaving_address("shared:16", &a, &shared, &err));
  CHECK(a == 16);
  CHECK(shared);
  CHECK_FALSE(parse_interleaving_address("0x", &a, &shared, &err));
  CHECK_FALSE(parse_interleaving_address("99999999999999999999999", &a, &shared, &err));
}

TEST_CASE("lanes of one store instruction: the reporting lane races with the lanes after it", "[interleaving]") {
  // Warp 0 lanes 0-3 load y (0) in one instruction, then store 1 in one instruction; the report
  // names all four lanes as writers (a lost update inside one warp).
  tt::TempFile file("warp.trace");
  constexpr uint64_t kY = 0x4000;
  Writer w;
  begin_one_warp(w, file.path, "warp-demo");
  std::string err;
  std::vector<Event> v;
  v.push_back(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 1));
  v.push_back(step(1, 0, 0xfu, 1, 5, InstrClass::Load));
  for (uint8_t l = 0; l < 4; ++l) v.push_back(ev(1, 0, EventKind::MemAccess, l, tt::mem_aux(false), kY, 0));
  v.push_back(step(2, 0, 0xfu, 2, 5, InstrClass::Store));
  for (uint8_t l = 0; l < 4; ++l) v.push_back(ev(2, 0, EventKind::MemAccess, l, tt::mem_aux(true), kY, 1));
  for (const Event& e : v) w.event(e);
  nlohmann::json parties = nlohmann::json::array();
  for (int l = 0; l < 4; ++l) parties.push_back(party(0, 0, l, 5, "write"));
  const uint32_t id = w.report({{"kind", "race"}, {"title", "lost update"}, {"launch", 0}, {"parties", parties}});
  w.event(ev(3, 0, EventKind::Report, 0, uint16_t(ReportKindCode::Race), id, 5));
  w.event(ev(4, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
  w.close();
  auto t = load(file.path, &err);
  REQUIRE(t);
  Interleaving il;
  REQUIRE(find_interleaving(*t, {}, &il, &err));
  // The four loads are one item (lanes 0-3); the stores of lanes 0 and 1 are the race; lanes 2-3
  // stored in the same instruction.
  REQUIRE(il.items.size() >= 4);
  CHECK(il.items[0].kind == InterleavingItemKind::Load);
  CHECK(il.items[0].lanes == 0xfu);
  CHECK(interleaving_thread_name(il.items[0]) == "block 0 threads 0-3 (warp 0)");
  REQUIRE(il.racing[1] >= 0);
  CHECK(il.items[size_t(il.racing[0])].lane == 0);
  CHECK(il.items[size_t(il.racing[1])].lane == 1);
  CHECK(il.items[size_t(il.racing[1]) + 1].lanes == 0xcu);
  CHECK(contains(il.explanation, "4 threads"));
  CHECK(contains(il.explanation, "three increments are lost"));
  CHECK(contains(il.explanation, "not 4"));
}

TEST_CASE("a race with the host: the host's write is listed and marked, and is no thread of the launch",
          "[interleaving]") {
  // Mapped memory word m: lane 0 stores 1 (step 1); the host writes 2 while the kernel runs; lane 0
  // loads m at step 3 and reads 2, and the race checker reports the load against the host's write
  // (its host rules: the party "host write (...)" has no warp). A host write to another word is no
  // access to m. Three traces:
  //   before: the host's write recorded before the load;
  //   after:  recorded after it (a trace that compares memory before each step finds a host write
  //           at the device's next step), with an earlier host write of 5 to m before the load:
  //           the write of the value the load returned (2) is the one marked, and a note says why
  //           it comes after;
  //   none:   no host event on m (not a named region): a note says so, the device load alone.
  constexpr uint64_t kM = 0x5000, kOtherWord = 0x5008;
  constexpr uint32_t kHostLine = 42;
  enum class Host { Before, After, None };
  for (const Host where : {Host::Before, Host::After, Host::None}) {
    CAPTURE(int(where));
    tt::TempFile file("host.trace");
    Writer w;
    begin_one_warp(w, file.path, "host-race");
    std::string err;
    std::vector<Event> v;
    auto host_write = [&](uint64_t t, uint64_t addr, uint64_t value) {
      v.push_back(ev(t, 0, EventKind::HostAccess, kAllLanes, tt::mem_aux(true, 2, MemSpace::HostMapped), addr, value));
      return v.size() - 1;
    };
    v.push_back(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 1));
    v.push_back(step(1, 0, 1u, 1, 6, InstrClass::Store));
    v.push_back(ev(1, 0, EventKind::MemAccess, 0, tt::mem_aux(true, 2, MemSpace::HostMapped), kM, 1));
    host_write(2, kOtherWord, 9);
    size_t host_at = SIZE_MAX;
    if (where == Host::Before) host_at = host_write(2, kM, 2);
    if (where == Host::After) host_write(2, kM, 5);
    v.push_back(step(2, 0, 1u, 2, 6, InstrClass::Alu));
    v.push_back(step(3, 0, 1u, 3, 7, InstrClass::Load));
    const size_t load_at = v.size();
    v.push_back(ev(3, 0, EventKind::MemAccess, 0, tt::mem_aux(false, 2, MemSpace::HostMapped), kM, 2));
    if (where == Host::After) host_at = host_write(4, kM, 2);
    for (const Event& e : v) w.event(e);
    nlohmann::json host = {{"block", -1},
                           {"warp", -1},
                           {"lane", -1},
                           {"file", "/src/host.cu"},
                           {"line", kHostLine},
                           {"ptx_line", 0},
                           {"access", "host write (system scope)"}};
    const uint32_t id = w.report({{"kind", "race"},
                                  {"title", "host and device race on host-mapped memory"},
                                  {"launch", 0},
                                  {"parties", {party(0, 0, 0, 7, "read"), host}}});
    w.event(ev(5, 0, EventKind::Report, 0, uint16_t(ReportKindCode::Race), id, 7));
    w.event(ev(6, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
    w.close();
    auto t = load(file.path, &err);
    REQUIRE(t);
    Interleaving il;
    REQUIRE(find_interleaving(*t, {}, &il, &err));
    std::ostringstream text;
    write_interleaving(*t, il, text);
    INFO(text.str());
    if (where == Host::None) {
      CHECK(il.racing[1] < 0);
      CHECK(contains(text.str(), "the host's access the report names is not in the trace"));
      CHECK(contains(text.str(), "synclab_region()"));
      continue;
    }
    REQUIRE(il.racing[0] >= 0);
    REQUIRE(il.racing[1] >= 0);
    const InterleavingItem& h = il.items[size_t(il.racing[where == Host::Before ? 0 : 1])];
    const InterleavingItem& d = il.items[size_t(il.racing[where == Host::Before ? 1 : 0])];
    CHECK(h.host);
    CHECK(h.cursor == host_at);
    CHECK(h.kind == InterleavingItemKind::Store);
    CHECK(h.value == 2);
    CHECK(interleaving_thread_name(h) == "the host");
    CHECK(h.line == kHostLine);
    CHECK_FALSE(d.host);
    CHECK(d.cursor == load_at);
    CHECK(d.kind == InterleavingItemKind::Load);
    // Listed: the device store, the host's store(s) to m (not the other word's), the device load.
    size_t host_items = 0;
    for (const InterleavingItem& it : il.items) host_items += it.host;
    CHECK(host_items == (where == Host::Before ? 1u : 2u));
    CHECK(contains(text.str(), "the host"));
    CHECK(contains(text.str(), "host store 2"));
    CHECK(contains(text.str(), "host.cu:42"));
    CHECK(contains(text.str(), "listed where the trace found it") == (where == Host::After));
  }
}

TEST_CASE("a race picked by default after a report of another kind names that report first", "[interleaving]") {
  // Report 0: a barrier divergence (no address); report 1: a race on y between lanes 0 and 1,
  // made after it. Without the sync report (the race alone) nothing is said of one.
  for (const bool with_sync : {true, false}) {
    tt::TempFile file("after-sync.trace");
    constexpr uint64_t kY = 0x4000;
    Writer w;
    begin_one_warp(w, file.path, "after-sync");
    std::string err;
    w.event(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 1));
    if (with_sync) {
      const uint32_t sync = w.report({{"kind", "sync"},
                                      {"title", "barrier divergence: threads wait at different __syncthreads()"},
                                      {"launch", 0}});
      w.event(ev(1, 0, EventKind::Report, 0, uint16_t(ReportKindCode::Sync), sync, 4));
    }
    w.event(step(2, 0, 0x3u, 2, 5, InstrClass::Store));
    for (uint8_t l = 0; l < 2; ++l) w.event(ev(2, 0, EventKind::MemAccess, l, tt::mem_aux(true), kY, l));
    nlohmann::json parties = nlohmann::json::array();
    for (int l = 0; l < 2; ++l) parties.push_back(party(0, 0, l, 5, "write"));
    const uint32_t race =
        w.report({{"kind", "race"}, {"title", "write-write race"}, {"launch", 0}, {"parties", parties}});
    w.event(ev(3, 0, EventKind::Report, 0, uint16_t(ReportKindCode::Race), race, 5));
    w.event(ev(4, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
    w.close();
    auto t = load(file.path, &err);
    REQUIRE(t);
    Interleaving il;
    REQUIRE(find_interleaving(*t, {}, &il, &err));
    std::ostringstream out;
    write_interleaving(*t, il, out);
    INFO(out.str());
    if (with_sync) {
      CHECK(il.report == 1);
      CHECK(il.earlier_id == 0);
      CHECK(il.earlier_kind == "sync");
      CHECK(contains(out.str(), "report 0 (sync: barrier divergence"));
      CHECK(contains(out.str(), "came before it in this run"));
    } else {
      CHECK(il.report == 0);
      CHECK(il.earlier_id == -1);
      CHECK_FALSE(contains(out.str(), "came before it"));
    }
  }
}

TEST_CASE("an access's source line is its warp's latest WarpStep at or before it, with its time", "[interleaving]") {
  tt::TempFile file("lines.trace");
  constexpr uint64_t kZ = 0x5000;
  Writer w;
  std::string err;
  REQUIRE(w.open(file.path, {{"program", "lines"}}, false, WriterOptions{}, &err));
  w.kernel({{"name", "k"},
            {"launch", 0},
            {"grid", {1, 1, 1}},
            {"block", {32, 1, 1}},
            {"warps_per_block", 1},
            {"files", {"/src/lines.cu"}}});
  w.event(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 1));
  // The step, then its load: line 10. A later step of the warp with the same time (hand-written)
  // is not the load's.
  w.event(step(5, 0, 0x1u, 1, 10, InstrClass::Load));
  w.event(ev(5, 0, EventKind::MemAccess, 0, tt::mem_aux(false), kZ, 1));
  w.event(step(5, 0, 0x1u, 2, 11, InstrClass::Alu));
  // A step whose mask lacks the lane: no line for lane 0's store.
  w.event(step(6, 0, 0x2u, 3, 12, InstrClass::Store));
  w.event(ev(6, 0, EventKind::MemAccess, 0, tt::mem_aux(true), kZ, 2));
  // An access with no step at its time (the step before it is older): no line.
  w.event(ev(7, 0, EventKind::MemAccess, 0, tt::mem_aux(false), kZ, 3));
  // The step with its time comes only after it: not its instruction either.
  w.event(step(7, 0, 0x1u, 4, 14, InstrClass::Load));
  w.event(ev(8, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
  w.close();
  auto t = load(file.path, &err);
  REQUIRE(t);
  Interleaving il;
  InterleavingRequest req;
  req.address = "0x5000";
  REQUIRE(find_interleaving(*t, req, &il, &err));
  std::vector<uint32_t> lines;
  for (const InterleavingItem& it : il.items)
    if (is_access(it)) lines.push_back(it.line);
  CHECK(lines == std::vector<uint32_t>{10, 0, 0});
  REQUIRE(!il.items.empty());
  CHECK(il.items.front().file == "/src/lines.cu");
}

// ---- the tool ------------------------------------------------------------------------------------

namespace {

struct ToolRun {
  int status = -1;  // exit status; -1: killed by a signal
  std::string out;  // stdout and stderr
};

ToolRun tool(const std::string& args) {
  const std::string cmd = std::string(SYNCLAB_TRACE_TOOL) + " interleaving " + args + " 2>&1";
  ToolRun r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  INFO("$ " << cmd << "\n" << r.out);
  return r;
}

}  // namespace

TEST_CASE("synclab-trace interleaving: output and bad input", "[interleaving][tool]") {
  Fixture f;
  SECTION("the first race report, the two racing lines marked") {
    const ToolRun r = tool(f.file.path);
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(contains(r.out, "report 0 (race): write-after-read race on global memory"));
    CHECK(contains(r.out, "the first of 2 race reports"));
    size_t marks = 0;
    for (size_t at = r.out.find("\n>>"); at != std::string::npos; at = r.out.find("\n>>", at + 1)) ++marks;
    CHECK(marks == 2);
    CHECK(contains(r.out, "one increment is lost"));
    CHECK(contains(r.out, "race.cu:22"));
  }
  SECTION("an unknown report number") {
    const ToolRun r = tool(f.file.path + " --report 12");
    CHECK(r.status == 1);
    CHECK(contains(r.out, "there is no report 12"));
  }
  SECTION("an address outside every region") {
    const ToolRun r = tool(f.file.path + " --address 0xdead0000");
    CHECK(r.status == 1);
    CHECK(contains(r.out, "address 0xdead0000 is outside every region"));
    CHECK(contains(r.out, f.file.path));
  }
  SECTION("a report of an unknown kind") {
    const ToolRun r = tool(f.file.path + " --report 2");
    CHECK(r.status == 1);
    CHECK(contains(r.out, "report 2 (mystery"));
  }
  SECTION("a malformed file and a truncated one") {
    tt::TempFile junk("junk.trace");
    tt::write_all(junk.path, std::vector<unsigned char>(100, 'z'));
    ToolRun r = tool(junk.path);
    CHECK(r.status == 1);
    CHECK(contains(r.out, "not a SyncLab trace"));
    // Cut inside the first chunk: refused; cut after it: no reports left to show.
    const std::vector<unsigned char> all = tt::read_all(f.file.path);
    tt::TempFile cut("cut.trace");
    tt::write_all(cut.path, all.data(), 40);
    r = tool(cut.path);
    CHECK(r.status == 1);
    CHECK(contains(r.out, "cut.trace"));
    for (size_t n : {all.size() / 3, all.size() / 2, all.size() - 9}) {
      tt::write_all(cut.path, all.data(), n);
      r = tool(cut.path);
      CHECK((r.status == 0 || r.status == 1));  // an answer or a message, never a signal
      CHECK(!r.out.empty());
    }
  }
  SECTION("a bad address and a bad option") {
    ToolRun r = tool(f.file.path + " --address 12zz");
    CHECK(r.status == 1);
    CHECK(contains(r.out, "'12zz' is not an address"));
    r = tool(f.file.path + " --report");
    CHECK(r.status == 2);
  }
}
