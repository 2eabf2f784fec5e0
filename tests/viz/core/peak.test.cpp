// Model::peak (synclab-viz --step most:REGIONS / max:REGIONS) on a hand-written trace whose
// running totals are worked out in the comments.
#include "viz_test_util.h"

#include <synclab/catch.h>

using namespace vt;

TEST_CASE("peak: the first event at which regions hold the most", "[viz][navigation]") {
  using synclab::trace::kRegionSnapshot;
  const std::string path = temp_path("peak");
  {
    synclab::trace::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "peak"}, {"backend", "sim"}}, false, {}, &err));
    w.region(synclab::trace::region_json(0, "locks", "lock-bits", 0x1000, 8, 1, {64}));
    w.region(synclab::trace::region_json(1, "count", "array", 0x2000, 16, 32, {4}));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    const auto RU = EventKind::RegionUpdate;
    //                                                  locks held | count non-zero | count sum
    w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 1));  // c0   0 | 0 | 0
    w.event(ev(0, 0, RU, 0xff, 1 | kRegionSnapshot, 2, 4));    // c1   0 | 1 | 4 (starting contents)
    w.event(ev(1, 0, RU, 0, 0, 0, 1));                         // c2   1 | 1 | 4
    w.event(ev(2, 0, RU, 1, 0, 5, 1));                         // c3   2 | 1 | 4
    w.event(ev(3, 0, RU, 0, 1, 0, 3));                         // c4   2 | 2 | 7
    w.event(ev(4, 0, RU, 0, 0, 0, 0));                         // c5   1 | 2 | 7
    w.event(ev(5, 0, RU, 2, 0 | (1 << 8), 8, 0x7));            // c6   4 | 2 | 7 (bits 8-10, one byte)
    w.event(ev(6, 0, RU, 0, 1, 2, 0));                         // c7   4 | 1 | 3
    w.event(ev(7, 0, RU, 2, 0 | (1 << 8), 8, 0));              // c8   1 | 1 | 3
    w.event(ev(8, 0, RU, 0, 1, 1, 1));                         // c9   1 | 2 | 4
    w.event(ev(9, 0, RU, 0, 1, 3, 9));                         // c10  1 | 3 | 13
    w.event(ev(9, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));    // c11
    // A second launch where nothing is ever set.
    w.kernel({{"name", "k"}, {"launch", 1}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 1, 1));
    w.event(ev(1, 0, RU, 0, 1, 0, 0));
    w.event(ev(2, 0, EventKind::KernelEnd, 0xff, 0, 1, 0));
    w.close();
  }
  std::string err;
  auto m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  REQUIRE(m->regions().size() == 2);
  using PM = Model::PeakMeasure;
  CHECK(m->peak(0, {0}, PM::NonZero) == 6);
  CHECK(m->peak(0, {0}, PM::Sum) == 6);          // bits are 0 or 1
  CHECK(m->peak(0, {1}, PM::NonZero) == 10);
  CHECK(m->peak(0, {1}, PM::Sum) == 10);
  CHECK(m->peak(0, {0, 1}, PM::NonZero) == 6);   // 4 + 2 (c6) beats 4 + 1 (c7) and 1 + 3 (c10)
  CHECK(m->peak(0, {0, 1}, PM::Sum) == 10);      // 1 + 13
  CHECK(m->peak(0, {}, PM::NonZero) == kNoCursor);
  CHECK(m->peak(1, {0, 1}, PM::NonZero) == kNoCursor);
  CHECK(m->peak(7, {0}, PM::NonZero) == kNoCursor);  // no such launch
  // The totals the peaks claim, from the states there.
  const State s6 = m->state_at(0, 6);
  uint64_t held = 0;
  for (const CellView& c : s6.regions[0].cells) held += c.value;
  CHECK(held == 4);
  const State s10 = m->state_at(0, 10);
  uint64_t sum = 0;
  for (const CellView& c : s10.regions[1].cells) sum += c.value;
  CHECK(sum == 13);
  std::remove(path.c_str());
}
