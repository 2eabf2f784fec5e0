// Trace writer and reader: round trips, filters, the size limit, damaged files.
#include "trace_test_util.h"

#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>

#include <synclab/catch.h>

#include <cstring>
#include <random>

using namespace synclab::trace;
using tt::ev;

namespace {

nlohmann::json small_header() {
  return {{"program", "unit-test"}, {"model", "its"}, {"scheduler", "rr"}, {"seed", 7},
          {"device", "teaching"}};
}

nlohmann::json kernel_json(const std::string& name, int launch, unsigned wpb = 2) {
  return {{"name", name}, {"launch", launch}, {"grid", {2, 1, 1}}, {"block", {32 * wpb, 1, 1}},
          {"warps_per_block", wpb}, {"shared_bytes", 0}};
}

// One event of every kind, with distinct field values.
std::vector<Event> every_kind() {
  std::vector<Event> v;
  uint64_t t = 100;
  v.push_back(ev(t++, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 4));
  v.push_back(tt::step(t++, 1, 0xffff00ffu, 17, 42, InstrClass::Load));
  v.push_back(ev(t++, 1, EventKind::MemAccess, 3, tt::mem_aux(false, 2), 0x7f0000001000ull, 0xdeadbeef));
  v.push_back(ev(t++, 1, EventKind::MemAccess, 4, tt::mem_aux(true, 3, MemSpace::Shared), 0x40, ~0ull));
  v.push_back(ev(t++, 2, EventKind::Atomic, 5, tt::mem_aux(true, 2), 0x7f0000002000ull, (uint64_t(1) << 32) | 0));
  v.push_back(ev(t++, 2, EventKind::Atomic, 6, uint16_t(tt::mem_aux(true, 3) | kAux64), 0x7f0000002008ull, 0));
  v.push_back(ev(t, 2, EventKind::AtomicWide, 6, 0, 0x1122334455667788ull, 0x99aabbccddeeff00ull));
  ++t;
  v.push_back(ev(t++, 3, EventKind::BarrierArrive, kAllLanes, 1, 0xffffffffu, 1));
  v.push_back(ev(t++, 2, EventKind::BarrierRelease, kAllLanes, 1, 64, 1));
  v.push_back(ev(t++, 3, EventKind::RegionUpdate, 9, 0, 37, 1));
  v.push_back(ev(t++, 3, EventKind::Report, kAllLanes, uint16_t(ReportKindCode::Race), 0, 33));
  v.push_back(ev(t++, 1, EventKind::LaneExit, kAllLanes, 0, 0x0000ffffu, 0));
  v.push_back(ev(t++, 0, EventKind::Mark, 2, 77, 123, 456));
  v.push_back(ev(t++, 2, EventKind::BlockPlacement, kAllLanes, 0, 1, 0));
  v.push_back(ev(t++, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
  return v;
}

bool write_trace(const std::string& path, const WriterOptions& opt,
                 const std::vector<std::pair<nlohmann::json, std::vector<Event>>>& launches,
                 Writer* w_out = nullptr) {
  Writer local;
  Writer& w = w_out ? *w_out : local;
  std::string err;
  if (!w.open(path, small_header(), false, opt, &err)) {
    FAIL(err);
    return false;
  }
  for (const auto& [k, events] : launches) {
    w.kernel(k);
    for (const Event& e : events) w.event(e);
  }
  w.close();
  return true;
}

std::unique_ptr<Trace> load_ok(const std::string& path) {
  std::string err;
  auto t = load(path, &err);
  INFO(err);
  REQUIRE(t);
  return t;
}

}  // namespace

TEST_CASE("round trip: every event kind and every chunk kind", "[trace][io]") {
  tt::TempFile f("round.trace");
  const std::vector<Event> events = every_kind();
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, small_header(), false, WriterOptions{}, &err));
    CHECK(w.recording());
    w.region(region_json(0, "locks", "lock-bits", 0x7f0000003000ull, 128, 1, {32, 32}));
    w.region({{"name", "ready"}, {"kind", "flags"}, {"address", 4096}, {"bytes", 64},
              {"elem_bits", 32}, {"dims", {16}}});  // no id: the writer gives it 1
    w.kernel(kernel_json("k0", 0));
    for (size_t i = 0; i < 7; ++i) w.event(events[i]);
    CHECK(w.events_written() == 0);  // buffered until ~1 MiB or the next JSON chunk
    uint32_t id0 = w.report({{"kind", "race"}, {"severity", "error"}, {"title", "data race on x"},
                             {"launch", 0}, {"parties", {{{"block", 1}, {"warp", 1}, {"line", 33}}}}});
    CHECK(id0 == 0);
    CHECK(w.events_written() == 7);  // the report flushed them first, to keep the order
    for (size_t i = 7; i < events.size(); ++i) w.event(events[i]);
    w.kernel(kernel_json("k1", 1, 4));
    for (const Event& e : events) w.event(e);
    uint32_t id1 = w.report(nlohmann::json{{"kind", "hang"}, {"title", "spin"}});
    CHECK(id1 == 1);
    w.close({{"note", "extra"}});
    CHECK(w.events_written() == 2 * events.size());
    CHECK(w.events_dropped() == 0);
    CHECK_FALSE(w.recording());
    w.close();  // idempotent
  }
  auto t = load_ok(f.path);
  CHECK(t->warning.empty());
  CHECK(t->complete);
  CHECK_FALSE(t->gpu);
  CHECK(t->version == kVersion);
  CHECK(t->header["program"] == "unit-test");
  CHECK(t->header["backend"] == "sim");
  CHECK(t->header["seed"] == 7);
  REQUIRE(t->regions.size() == 2);
  CHECK(t->regions[0]["name"] == "locks");
  CHECK(t->regions[0]["dims"] == nlohmann::json({32, 32}));
  CHECK(t->regions[1]["id"] == 1);
  REQUIRE(t->reports.size() == 2);
  CHECK(t->reports[0]["id"] == 0);
  CHECK(t->reports[0]["title"] == "data race on x");
  CHECK(t->reports[1]["id"] == 1);
  CHECK(t->report_by_id(1) == &t->reports[1]);
  CHECK(t->region_by_id(1) == &t->regions[1]);
  CHECK(t->report_by_id(5) == nullptr);
  CHECK(t->footer["events"] == 2 * events.size());
  CHECK(t->footer["note"] == "extra");
  CHECK(t->footer["dropped"] == 0);
  REQUIRE(t->launches.size() == 2);
  CHECK(t->launches[0].name == "k0");
  CHECK(t->launches[1].warps_per_block == 4);
  CHECK(t->launches[1].block[0] == 128);
  CHECK(t->launches[0].grid[0] == 2);
  CHECK(t->launches[0].first_event == 0);
  CHECK(t->launches[0].end_event == events.size());
  CHECK(t->launches[1].first_event == events.size());
  CHECK(t->launches[1].end_event == 2 * events.size());
  REQUIRE(t->event_count() == 2 * events.size());
  // The report split launch 0's events into two chunks; order is kept across them.
  CHECK(t->chunks().size() == 3);
  for (size_t i = 0; i < t->event_count(); ++i) {
    const Event& want = events[i % events.size()];
    INFO("event " << i);
    CHECK(tt::same(t->event(i), want));
    CHECK(t->launch_of(i) == int(i / events.size()));
  }
}

TEST_CASE("round trip: many chunks, random access", "[trace][io]") {
  tt::TempFile f("many.trace");
  std::vector<Event> events;
  std::mt19937_64 rng(5);
  for (size_t i = 0; i < 100000; ++i)  // ~3 Events chunks of 32768
    events.push_back(ev(i, uint32_t(rng() % 64), EventKind(1 + rng() % 13), uint8_t(rng() % 32),
                        uint16_t(rng()), rng(), rng()));
  write_trace(f.path, WriterOptions{}, {{kernel_json("big", 0), events}});
  auto t = load_ok(f.path);
  REQUIRE(t->event_count() == events.size());
  CHECK(t->chunks().size() == 4);
  for (size_t i = 0; i < events.size(); i += 997) CHECK(tt::same(t->event(i), events[i]));
  CHECK(tt::same(t->event(events.size() - 1), events.back()));
  CHECK(tt::same(t->event(32768), events[32768]));
  CHECK(tt::same(t->event(32767), events[32767]));
  CHECK(t->index_bytes() < 1024);
}

TEST_CASE("GPU flag and an empty trace", "[trace][io]") {
  tt::TempFile f("gpu.trace");
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, {{"program", "g"}}, true, WriterOptions{}, &err));
  }  // the destructor closes
  auto t = load_ok(f.path);
  CHECK(t->gpu);
  CHECK(t->header["backend"] == "gpu");
  CHECK(t->complete);
  CHECK(t->event_count() == 0);
  CHECK(t->launches.empty());
}

TEST_CASE("open fails clearly for an unwritable path", "[trace][io]") {
  Writer w;
  std::string err;
  CHECK_FALSE(w.open("/nonexistent-dir/x.trace", {}, false, WriterOptions{}, &err));
  CHECK(err.find("/nonexistent-dir/x.trace") != std::string::npos);
  CHECK_FALSE(w.recording());
  w.event(ev(0, 0, EventKind::Mark, 0, 0, 0, 0));  // harmless
  w.close();
}

// ---- filters ---------------------------------------------------------------------------------------

TEST_CASE("filter: kinds", "[trace][filter]") {
  tt::TempFile f("kinds.trace");
  WriterOptions opt;
  opt.kinds = kind_bits("barrier") | kind_bits("atomic");
  const std::vector<Event> events = every_kind();
  Writer w;
  write_trace(f.path, opt, {{kernel_json("k", 0), events}}, &w);
  auto t = load_ok(f.path);
  std::vector<Event> want;
  for (const Event& e : events)
    if (e.kind == uint8_t(EventKind::BarrierArrive) || e.kind == uint8_t(EventKind::BarrierRelease) ||
        e.kind == uint8_t(EventKind::Atomic) || e.kind == uint8_t(EventKind::AtomicWide))
      want.push_back(e);
  REQUIRE(want.size() == 5);
  REQUIRE(t->event_count() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(tt::same(t->event(i), want[i]));
  CHECK(t->footer["filtered"] == events.size() - want.size());
  CHECK(w.events_filtered() == events.size() - want.size());
  CHECK(t->header["recording"]["kinds"] == nlohmann::json({"atomic", "barrier"}));
}

TEST_CASE("filter: kinds without atomic drops the AtomicWide half too", "[trace][filter]") {
  tt::TempFile f("kinds2.trace");
  WriterOptions opt;
  opt.kinds = kind_bits("step") | kind_bits("mem");
  write_trace(f.path, opt, {{kernel_json("k", 0), every_kind()}});
  auto t = load_ok(f.path);
  REQUIRE(t->event_count() == 3);
  for (size_t i = 0; i < 3; ++i)
    CHECK((t->event(i).kind == uint8_t(EventKind::WarpStep) || t->event(i).kind == uint8_t(EventKind::MemAccess)));
}

TEST_CASE("filter: kernels", "[trace][filter]") {
  tt::TempFile f("kernels.trace");
  WriterOptions opt;
  opt.kernels = {"wanted"};
  const std::vector<Event> events = every_kind();
  write_trace(f.path, opt,
              {{kernel_json("other", 0), events}, {kernel_json("wanted", 1), events}, {kernel_json("other", 2), events}});
  auto t = load_ok(f.path);
  REQUIRE(t->launches.size() == 3);
  CHECK_FALSE(t->launches[0].recorded);
  CHECK(t->launches[1].recorded);
  CHECK_FALSE(t->launches[2].recorded);
  CHECK(t->launches[0].event_count() == 0);
  CHECK(t->launches[2].event_count() == 0);
  REQUIRE(t->launches[1].event_count() == events.size());
  for (size_t i = 0; i < events.size(); ++i) CHECK(tt::same(t->event(t->launches[1].first_event + i), events[i]));
  CHECK(t->footer["filtered"] == 2 * events.size());
}

TEST_CASE("filter: blocks", "[trace][filter]") {
  tt::TempFile f("blocks.trace");
  WriterOptions opt;
  opt.block_first = 1;
  opt.block_last = 1;
  // warps_per_block 2: warps 0,1 are block 0, warps 2,3 block 1.
  const std::vector<Event> events = every_kind();
  write_trace(f.path, opt, {{kernel_json("k", 0, 2), events}});
  auto t = load_ok(f.path);
  std::vector<Event> want;
  for (const Event& e : events) {
    auto k = EventKind(e.kind);
    bool keep;
    if (k == EventKind::KernelBegin || k == EventKind::KernelEnd || k == EventKind::Report)
      keep = true;
    else if (k == EventKind::BarrierArrive || k == EventKind::BarrierRelease)
      keep = e.b == 1;
    else
      keep = e.warp / 2 == 1;
    if (keep) want.push_back(e);
  }
  REQUIRE(t->event_count() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(tt::same(t->event(i), want[i]));
  // Spot checks of the reference: warp 1's events are gone, the 64-bit atomic pair of warp 2 kept.
  for (size_t i = 0; i < t->event_count(); ++i) CHECK(t->event(i).warp != 1);
  bool wide = false;
  for (size_t i = 0; i < t->event_count(); ++i) wide |= t->event(i).kind == uint8_t(EventKind::AtomicWide);
  CHECK(wide);
}

TEST_CASE("filter: address ranges", "[trace][filter]") {
  tt::TempFile f("ranges.trace");
  WriterOptions opt;
  opt.address_ranges = {{0x7f0000002008ull, 0x7f0000002010ull}, {0x40, 0x41}};
  const std::vector<Event> events = every_kind();
  write_trace(f.path, opt, {{kernel_json("k", 0), events}});
  auto t = load_ok(f.path);
  // Dropped: the MemAccess at ...1000 and the 32-bit atomic at ...2000. Kept: the shared store at
  // 0x40, the 64-bit atomic at ...2008 with its AtomicWide, everything that has no address.
  std::vector<Event> want;
  for (const Event& e : events)
    if (!((e.kind == uint8_t(EventKind::MemAccess) && e.a == 0x7f0000001000ull) ||
          (e.kind == uint8_t(EventKind::Atomic) && e.a == 0x7f0000002000ull)))
      want.push_back(e);
  REQUIRE(want.size() == events.size() - 2);
  REQUIRE(t->event_count() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(tt::same(t->event(i), want[i]));
}

TEST_CASE("filter: a dropped 64-bit atomic takes its AtomicWide record along", "[trace][filter]") {
  tt::TempFile f("wide.trace");
  WriterOptions opt;
  opt.address_ranges = {{0x1000, 0x2000}};
  std::vector<Event> events = {
      ev(1, 0, EventKind::Atomic, 0, uint16_t(tt::mem_aux(true, 3) | kAux64), 0x5000, 0),
      ev(1, 0, EventKind::AtomicWide, 0, 0, 1, 2),
      ev(2, 0, EventKind::Atomic, 0, uint16_t(tt::mem_aux(true, 3) | kAux64), 0x1000, 0),
      ev(2, 0, EventKind::AtomicWide, 0, 0, 3, 4),
  };
  write_trace(f.path, opt, {{kernel_json("k", 0), events}});
  auto t = load_ok(f.path);
  REQUIRE(t->event_count() == 2);
  CHECK(tt::same(t->event(0), events[2]));
  CHECK(tt::same(t->event(1), events[3]));
}

// ---- size limit ------------------------------------------------------------------------------------

TEST_CASE("size limit stops recording, says so once, and leaves a complete file", "[trace][limit]") {
  tt::TempFile f("limit.trace");
  WriterOptions opt;
  opt.size_limit = 64 * 1024;
  const size_t n = 10000;  // 320,000 bytes of events
  Writer w;
  std::string message;
  {
    tt::StderrCapture cap;
    std::string err;
    REQUIRE(w.open(f.path, small_header(), false, opt, &err));
    w.kernel(kernel_json("k", 0));
    for (size_t i = 0; i < n; ++i) {
      w.event(ev(i, uint32_t(i % 4), EventKind::Mark, 0, 0, i, 0));
      if (i == n / 2) w.report({{"kind", "info"}, {"title", "late report"}});
    }
    CHECK_FALSE(w.recording());
    w.close();
    message = cap.text();
  }
  const uint64_t kept = w.events_written();
  CHECK(kept > 1000);
  CHECK(kept < 2048);
  CHECK(w.events_dropped() == n - kept);
  INFO(message);
  CHECK(message.find("size limit") != std::string::npos);
  CHECK(message.find("SYNCLAB_TRACE_LIMIT") != std::string::npos);
  CHECK(message.find("64 KiB") != std::string::npos);
  CHECK(message.find("after " + std::to_string(kept) + " events") != std::string::npos);
  // One message, not one per dropped event.
  CHECK(message.find("size limit") == message.rfind("size limit"));

  const auto bytes = tt::read_all(f.path);
  // Over the limit only by the JSON chunks written after the stop (report, footer).
  CHECK(bytes.size() <= opt.size_limit + 1024);
  auto t = load_ok(f.path);
  CHECK(t->complete);
  CHECK(t->warning.empty());
  CHECK(t->event_count() == kept);
  CHECK(t->footer["dropped"] == n - kept);
  CHECK(t->footer["stopped"].is_string());
  REQUIRE(t->reports.size() == 1);  // written after the stop, still there
  for (size_t i = 0; i < kept; ++i) REQUIRE(t->event(i).a == i);
}

// ---- damaged files ---------------------------------------------------------------------------------

namespace {

// A small trace with several chunks of each kind; returns its bytes.
std::vector<unsigned char> sample_bytes(const std::string& path, std::vector<Event>* all_events) {
  Writer w;
  std::string err;
  REQUIRE(w.open(path, small_header(), false, WriterOptions{}, &err));
  w.region(region_json(0, "locks", "lock-bits", 0x1000, 128, 1, {32, 32}));
  std::vector<Event> ks = every_kind();
  w.kernel(kernel_json("a", 0));
  for (const Event& e : ks) w.event(e);
  w.report({{"kind", "race"}, {"title", "t"}});
  for (const Event& e : ks) w.event(e);
  w.kernel(kernel_json("b", 1));
  for (const Event& e : ks) w.event(e);
  w.close({{"wall_seconds", 0}});  // the same bytes every run
  all_events->clear();
  for (int i = 0; i < 3; ++i) all_events->insert(all_events->end(), ks.begin(), ks.end());
  return tt::read_all(path);
}

size_t header_chunk_end(const std::vector<unsigned char>& b) {
  ChunkHeader h;
  std::memcpy(&h, b.data() + sizeof(Preamble), sizeof h);
  return sizeof(Preamble) + sizeof(ChunkHeader) + ((h.bytes + 7) & ~uint64_t(7));
}

}  // namespace

TEST_CASE("truncated at every byte: a clean error or a partial trace", "[trace][damage]") {
  tt::TempFile f("full.trace");
  tt::TempFile cut("cut.trace");
  std::vector<Event> events;
  const std::vector<unsigned char> full = sample_bytes(f.path, &events);
  const size_t header_end = header_chunk_end(full);
  size_t partial = 0, errors = 0;
  for (size_t len = 0; len < full.size(); ++len) {
    tt::write_all(cut.path, full.data(), len);
    std::string err;
    auto t = load(cut.path, &err);
    INFO("cut at " << len << " of " << full.size());
    if (len < header_end) {
      REQUIRE_FALSE(t);
      CHECK(err.find(cut.path) != std::string::npos);
      CHECK(err.find("byte") != std::string::npos);
      ++errors;
      continue;
    }
    REQUIRE(t);
    ++partial;
    CHECK_FALSE(t->complete);
    CHECK(t->warning.find("cut short") != std::string::npos);
    REQUIRE(t->event_count() <= events.size());
    for (size_t i = 0; i < t->event_count(); ++i) REQUIRE(tt::same(t->event(i), events[i]));
    for (const Launch& l : t->launches) REQUIRE(l.end_event <= t->event_count());
  }
  CHECK(errors == header_end);
  CHECK(partial == full.size() - header_end);
  // The whole file is complete.
  auto t = load_ok(f.path);
  CHECK(t->complete);
  CHECK(t->event_count() == events.size());
}

TEST_CASE("damaged files give clear errors", "[trace][damage]") {
  tt::TempFile f("ok.trace");
  tt::TempFile bad("bad.trace");
  std::vector<Event> events;
  const std::vector<unsigned char> full = sample_bytes(f.path, &events);
  std::string err;

  SECTION("empty file") {
    tt::write_all(bad.path, full.data(), 0);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("empty") != std::string::npos);
    CHECK(err.find(bad.path) != std::string::npos);
  }
  SECTION("missing file") {
    CHECK_FALSE(load("/nonexistent/none.trace", &err));
    CHECK(err.find("/nonexistent/none.trace") != std::string::npos);
  }
  SECTION("a directory") {
    CHECK_FALSE(load("/tmp", &err));
    CHECK(err.find("not a regular file") != std::string::npos);
  }
  SECTION("bad magic") {
    auto b = full;
    b[0] = 'X';
    tt::write_all(bad.path, b);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("byte 0") != std::string::npos);
    CHECK(err.find("not a SyncLab trace") != std::string::npos);
  }
  SECTION("wrong version") {
    auto b = full;
    uint32_t v = 99;
    std::memcpy(b.data() + 8, &v, 4);
    tt::write_all(bad.path, b);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("byte 8") != std::string::npos);
    CHECK(err.find("version 99") != std::string::npos);
  }
  SECTION("first chunk is not a Header") {
    auto b = full;
    uint32_t k = uint32_t(ChunkKind::Kernel);
    std::memcpy(b.data() + 16, &k, 4);
    tt::write_all(bad.path, b);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("byte 16") != std::string::npos);
    CHECK(err.find("Header") != std::string::npos);
  }
  SECTION("bad JSON in a Kernel chunk") {
    auto b = full;
    size_t off = header_chunk_end(b);  // Region chunk
    ChunkHeader h;
    std::memcpy(&h, b.data() + off, sizeof h);
    off += 16 + ((h.bytes + 7) & ~uint64_t(7));  // Kernel chunk
    std::memcpy(&h, b.data() + off, sizeof h);
    REQUIRE(h.kind == uint32_t(ChunkKind::Kernel));
    b[off + 16] = '[';
    b[off + 17] = '}';
    tt::write_all(bad.path, b);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("bad JSON in the Kernel chunk at byte " + std::to_string(off)) != std::string::npos);
  }
  SECTION("Events payload not whole events") {
    auto b = full;
    size_t off = sizeof(Preamble);
    ChunkHeader h{};
    while (true) {
      std::memcpy(&h, b.data() + off, sizeof h);
      if (h.kind == uint32_t(ChunkKind::Events)) break;
      off += 16 + ((h.bytes + 7) & ~uint64_t(7));
    }
    h.bytes -= 8;  // still fits in the file, no longer a multiple of 32
    std::memcpy(b.data() + off, &h, sizeof h);
    tt::write_all(bad.path, b);
    CHECK_FALSE(load(bad.path, &err));
    CHECK(err.find("byte " + std::to_string(off)) != std::string::npos);
    CHECK(err.find("whole number of 32-byte events") != std::string::npos);
  }
  SECTION("a chunk length past the end keeps what came before") {
    auto b = full;
    size_t off = header_chunk_end(b);  // the Region chunk
    ChunkHeader h;
    std::memcpy(&h, b.data() + off, sizeof h);
    h.bytes = ~uint64_t(0) - 3;  // absurd: must not wrap around
    std::memcpy(b.data() + off, &h, sizeof h);
    tt::write_all(bad.path, b);
    auto t = load(bad.path, &err);
    REQUIRE(t);
    CHECK_FALSE(t->complete);
    CHECK(t->event_count() == 0);
    CHECK(t->regions.empty());
    CHECK(t->warning.find("byte " + std::to_string(off)) != std::string::npos);
    CHECK(t->warning.find("claims") != std::string::npos);
  }
  SECTION("unknown chunk kinds are skipped with a warning") {
    // Insert an unknown chunk (kind 77, 5 bytes + padding) right after the Header chunk.
    size_t at = header_chunk_end(full);
    std::vector<unsigned char> b(full.begin(), full.begin() + long(at));
    ChunkHeader h{};
    h.kind = 77;
    h.bytes = 5;
    const unsigned char* hp = reinterpret_cast<const unsigned char*>(&h);
    b.insert(b.end(), hp, hp + sizeof h);
    for (int i = 0; i < 8; ++i) b.push_back(i < 5 ? 'x' : 0);
    b.insert(b.end(), full.begin() + long(at), full.end());
    tt::write_all(bad.path, b);
    auto t = load(bad.path, &err);
    REQUIRE(t);
    CHECK(t->complete);
    CHECK(t->event_count() == events.size());
    CHECK(t->warning.find("unknown kind 77") != std::string::npos);
    CHECK(t->warning.find("byte " + std::to_string(at)) != std::string::npos);
  }
  SECTION("random corruption never crashes") {
    std::mt19937 rng(11);
    for (int round = 0; round < 4000; ++round) {
      auto b = full;
      int flips = 1 + int(rng() % 4);
      for (int i = 0; i < flips; ++i) b[rng() % b.size()] = uint8_t(rng());
      tt::write_all(bad.path, b);
      std::string e2;
      auto t = load(bad.path, &e2);
      if (!t) {
        CHECK_FALSE(e2.empty());
        continue;
      }
      // Whatever was accepted can be read in full.
      uint64_t sum = 0;
      for (size_t i = 0; i < t->event_count(); ++i) sum += t->event(i).a;
      for (const Launch& l : t->launches) CHECK(l.end_event <= t->event_count());
      (void)sum;
    }
  }
}

TEST_CASE("random access over many chunks of irregular sizes", "[trace][io]") {
  tt::TempFile f("irregular.trace");
  std::vector<Event> events;
  std::vector<int> launch_of;
  {
    Writer w;
    std::string err;
    REQUIRE(w.open(f.path, small_header(), false, WriterOptions{}, &err));
    std::mt19937 rng(3);
    int launch = -1;
    for (size_t i = 0; i < 60000; ++i) {
      if (rng() % 2000 == 0) w.report({{"title", "r"}});          // splits the Events chunk
      if (rng() % 9000 == 0) w.kernel(kernel_json("k", ++launch));  // a new launch
      if (i == 0) w.region(region_json(0, "r", "flags", 0, 4, 32, {1}));
      Event e = ev(i, uint32_t(rng()), EventKind::Mark, 0, 0, i, rng());
      w.event(e);
      events.push_back(e);
      launch_of.push_back(launch);
    }
    w.close();
  }
  auto t = load_ok(f.path);
  REQUIRE(t->event_count() == events.size());
  CHECK(t->chunks().size() > 20);
  for (size_t i = 0; i < events.size(); ++i) {
    REQUIRE(tt::same(t->event(i), events[i]));
    REQUIRE(t->launch_of(i) == launch_of[i]);
  }
  for (size_t l = 0; l < t->launches.size(); ++l)
    for (size_t i = t->launches[l].first_event; i < t->launches[l].end_event; ++i) REQUIRE(launch_of[i] == int(l));
  // Trace::scan (pread in blocks of 8,192 events) visits the same events, in order, for ranges that
  // start and end inside chunks and blocks, and stops at the end of the trace.
  std::mt19937 pick(11);
  for (int r = 0; r < 40; ++r) {
    size_t b = pick() % events.size(), e = b + pick() % 20000;
    if (r == 0) b = 0, e = events.size();
    if (r == 1) e = events.size() + 100;
    size_t next = b, bad = 0;
    t->scan(b, e, [&](const Event& x, size_t i) {
      if (i != next++ || !tt::same(x, events[i])) ++bad;
    });
    INFO("scan " << b << " .. " << e);
    CHECK(bad == 0);
    CHECK(next == std::min(e, events.size()));
  }
}

TEST_CASE("filter: kernels match the symbol, the demangled name, or its bare name", "[trace][filter]") {
  tt::TempFile f("kernels2.trace");
  WriterOptions opt;
  opt.kernels = {"lock_kernel", "_Z5otherv"};
  auto k = [](const char* name, const char* display, int launch) {
    nlohmann::json j = kernel_json(name, launch);
    if (display) j["display"] = display;
    return j;
  };
  const std::vector<Event> one = {ev(1, 0, EventKind::Mark, 0, 0, 1, 2)};
  write_trace(f.path, opt,
              {{k("_Z11lock_kernelPi", "lock_kernel(int*)", 0), one},
               {k("_Z5otherv", "other()", 1), one},
               {k("_Z4lockPi", "lock(int*)", 2), one},
               {k("lock_kernel", nullptr, 3), one}});
  auto t = load_ok(f.path);
  REQUIRE(t->launches.size() == 4);
  CHECK(t->launches[0].recorded);
  CHECK(t->launches[0].display == "lock_kernel(int*)");
  CHECK(t->launches[1].recorded);
  CHECK_FALSE(t->launches[2].recorded);
  CHECK(t->launches[3].recorded);
  CHECK(t->launches[3].display == "lock_kernel");
  CHECK(t->event_count() == 3);
}
