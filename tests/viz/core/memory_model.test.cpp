// The viewer's picture of the relaxed memory model, on traces the simulator records from
// programs/viz_message.cu (message passing, one launch per seed). What each launch must show is
// decided from the program's own result in that launch (the "seen" region's final value, which
// the kernel copied from data), not from the model's marks: a reader that ended with seen = 0 read
// an old value of data, so the trace must show that load as a stale read, the reading lane pink
// and data's write of 42 not yet visible to all; a launch whose reader saw 42 must show no stale
// read of data. With fences (the fixed twin) no launch may read the old data, and under
// SYNCLAB_MEMORY=sc (the default of other programs) no trace has memory-model marks at all.
#include "viz_test_util.h"

#include <synclab/catch.h>

using namespace vt;

namespace {

std::vector<uint64_t> marks_at(const Model& m, int launch, Mark k, uint64_t address) {
  std::vector<uint64_t> v;
  for (uint64_t c = m.next(launch, kNoCursor, k); c != kNoCursor; c = m.next(launch, c, k))
    if (m.event_at(launch, c).a == address) v.push_back(c);
  return v;
}

struct Outcomes {
  int launches = 0, old_data = 0, stale_data_reads = 0;
};

// Checks every launch of a viz_message trace; returns what it saw.
Outcomes check_launches(const Model& m) {
  Outcomes o;
  const int data = region_named(m, "data"), seen = region_named(m, "seen");
  REQUIRE(data >= 0);
  REQUIRE(seen >= 0);
  const uint64_t data_addr = m.regions()[size_t(data)].address;
  for (const LaunchInfo& L : m.launches()) {
    INFO("launch " << L.index);
    REQUIRE(L.status == LaunchStatus::Ok);
    REQUIRE(L.steps > 0);
    ++o.launches;
    const State end = m.state_at(L.index, L.steps - 1);
    const uint64_t seen_value = end.regions[size_t(seen)].cells[0].value;
    REQUIRE((seen_value == 0 || seen_value == 42));
    const std::vector<uint64_t> stale = marks_at(m, L.index, Mark::StaleRead, data_addr);
    o.stale_data_reads += int(stale.size());
    // The launch's end makes every write visible to all: no cell is left buffered.
    CHECK(end.regions[size_t(data)].cells[0].buffered_cursor == kNoCursor);
    CHECK(end.regions[size_t(data)].cells[0].value == 42);
    if (seen_value == 42) {
      CHECK(stale.empty());
      continue;
    }
    ++o.old_data;
    // The reader (block 1's warp, lane 0) read data's old value: one stale read of data.
    REQUIRE(stale.size() == 1);
    const uint64_t c = stale[0];
    const Event& e = m.event_at(L.index, c);
    CHECK(e.warp == 1);
    CHECK(e.lane == 0);
    CHECK(e.b == 42);  // memory's newest value, the one it missed
    const State s = m.state_at(L.index, c);
    CHECK(s.warps[1].lanes[0] == LaneState::StaleRead);
    CHECK(s.warps[1].stale == 1u);
    // The MemAccess right before it is the load, and it read 0.
    const Event& load = m.event_at(L.index, c - 1);
    CHECK(load.kind == uint8_t(EventKind::MemAccess));
    CHECK(!(load.aux & synclab::trace::kAuxWrite));
    CHECK(load.a == data_addr);
    CHECK(load.b == 0);
    // data holds 42 and that write is not yet visible to all: the Buffered event of the
    // writer's store, which came earlier in the launch.
    const CellView& cell = s.regions[size_t(data)].cells[0];
    CHECK(cell.value == 42);
    REQUIRE(cell.buffered_cursor != kNoCursor);
    CHECK(cell.buffered_cursor < c);
    const Event& buffered = m.event_at(L.index, cell.buffered_cursor);
    CHECK(buffered.kind == uint8_t(EventKind::MemoryModel));
    CHECK((buffered.aux & synclab::trace::kMemoryModelKindMask) == uint16_t(synclab::trace::MemoryModelKind::Buffered));
    CHECK(buffered.warp == 0);
    CHECK(buffered.b == 42);
    // ... until it becomes visible to all, later, by the writer's warp and lane.
    const std::vector<uint64_t> visible = marks_at(m, L.index, Mark::Visible, data_addr);
    REQUIRE(!visible.empty());
    CHECK(visible.back() > c);
    CHECK(m.event_at(L.index, visible.back()).warp == 0);
    CHECK(m.state_at(L.index, visible.back()).regions[size_t(data)].cells[0].buffered_cursor == kNoCursor);
    // One step later the reader's next instruction clears its pink.
    const uint64_t next = m.next(L.index, c, Mark::WarpStep, 1);
    if (next != kNoCursor) CHECK(m.state_at(L.index, next).warps[1].lanes[0] != LaneState::StaleRead);
  }
  return o;
}

}  // namespace

TEST_CASE("memory model: message passing without a fence shows the stale read and the buffered write",
          "[viz][memory]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_MESSAGE_EXE, "message", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      // Unordered, data's store and load race: the simulator says so (exit status 1).
      CHECK(rec.status == 1);
      CHECK(rec.log().find("(race): read-after-write race on global memory") != std::string::npos);
      auto m = open_ok(rec.path);
      REQUIRE(m->launches().size() == 64);
      const Outcomes o = check_launches(*m);
      // The weak outcome is allowed and the model explores it: some of 64 seeds show it.
      CHECK(o.old_data > 0);
      CHECK(o.old_data == o.stale_data_reads);
    }
  }
}

TEST_CASE("memory model: with fences no launch reads the old data (the fixed twin)", "[viz][memory]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_MESSAGE_EXE, "message-fence", model, "fence");
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);  // no report: the fences order data's store before its load
      auto m = open_ok(rec.path);
      const Outcomes o = check_launches(*m);
      CHECK(o.launches == 64);
      CHECK(o.old_data == 0);
      CHECK(o.stale_data_reads == 0);
    }
  }
}

TEST_CASE("memory model: a sequentially consistent run has no memory-model marks", "[viz][memory]") {
  Recorded rec(VIZ_MESSAGE_EXE, "message-sc", "its", "sc 8");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  CHECK(rec.status == 1);  // the race, as under relaxed
  CHECK(rec.log().find("0 of 8 runs read the old data") != std::string::npos);
  auto m = open_ok(rec.path);
  REQUIRE(m->launches().size() == 8);
  for (const LaunchInfo& L : m->launches()) {
    for (Mark k : {Mark::StaleRead, Mark::Reordering, Mark::Visible}) CHECK(m->next(L.index, kNoCursor, k) == kNoCursor);
    for (uint64_t c = 0; c < L.steps; ++c) CHECK(m->event_at(L.index, c).kind != uint8_t(EventKind::MemoryModel));
  }
}
