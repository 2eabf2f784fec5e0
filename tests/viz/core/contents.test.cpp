// Region contents the host put there (programs/viz_contents.cu): the viewer must start each launch
// from what the memory held when the launch began (host copies and memsets, also into a region
// named after the copy, and the previous launch's writes), not from zeros. The expected values
// are the program's constants.
#include "viz_test_util.h"

#include <synclab/catch.h>

using namespace vt;

namespace {

int region_index(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.regions().size(); ++i)
    if (m.regions()[i].name == name) return int(i);
  return -1;
}

std::vector<uint64_t> values(const State& s, int region) {
  std::vector<uint64_t> v;
  for (const CellView& c : s.regions[size_t(region)].cells) v.push_back(c.value);
  return v;
}

}  // namespace

TEST_CASE("contents: each launch starts from the host's copies and memsets", "[viz][contents]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_CONTENTS_EXE, "contents", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);
      std::string err;
      std::unique_ptr<Model> m = Model::open(rec.path, &err);
      INFO(err);
      REQUIRE(m);
      CHECK(m->warning().empty());
      REQUIRE(m->launches().size() == 2);
      const int data = region_index(*m, "data"), flags = region_index(*m, "flags"), locks = region_index(*m, "locks");
      REQUIRE(data >= 0);
      REQUIRE(flags >= 0);
      REQUIRE(locks >= 0);

      std::vector<uint64_t> want_locks(64, 0);
      want_locks[0] = want_locks[2] = want_locks[63] = 1;

      // Launch 0, at its first instruction: the host's contents, nobody's writes.
      const uint64_t first0 = m->next(0, kNoCursor, Mark::WarpStep);
      REQUIRE(first0 != kNoCursor);
      State s = m->state_at(0, first0);
      CHECK(values(s, data) == std::vector<uint64_t>{5, 0, 7, 0, 0, 0, 0, 9});
      CHECK(values(s, flags) == std::vector<uint64_t>(4, 0x01010101u));
      CHECK(values(s, locks) == want_locks);
      for (int r : {data, flags, locks})
        for (const CellView& c : s.regions[size_t(r)].cells) {
          CHECK(c.writer_cursor == kNoCursor);
          CHECK(c.owner_lane == kNoLane);
          CHECK(c.completion_cursor == kNoCursor);
        }

      // Starting contents are not writes: no acquire, no critical section, and every region-update
      // mark is the kernel's own store or atomic (a lane of warp 0).
      CHECK(m->next(0, kNoCursor, Mark::Acquire) == kNoCursor);
      for (const Span& sp : m->spans(0)) CHECK(sp.kind != SpanKind::CriticalSection);
      int updates = 0;
      for (uint64_t c = m->next(0, kNoCursor, Mark::RegionUpdate); c != kNoCursor;
           c = m->next(0, c, Mark::RegionUpdate)) {
        CHECK(m->event_at(0, c).lane == 0);
        ++updates;
      }
      CHECK(updates == 2);  // data[1] = 11 and the release of lock word 0

      // Launch 0, at its end: the kernel's write and release on top of the host's contents.
      s = m->state_at(0, m->launches()[0].steps - 1);
      CHECK(values(s, data) == std::vector<uint64_t>{5, 11, 7, 0, 0, 0, 0, 9});
      CHECK(s.regions[size_t(data)].cells[1].writer_cursor != kNoCursor);
      std::vector<uint64_t> after = want_locks;
      after[0] = after[2] = 0;
      CHECK(values(s, locks) == after);

      // Launch 1 begins with launch 0's results and the host copy made between the launches.
      const uint64_t first1 = m->next(1, kNoCursor, Mark::WarpStep);
      REQUIRE(first1 != kNoCursor);
      s = m->state_at(1, first1);
      CHECK(values(s, data) == std::vector<uint64_t>{5, 11, 7, 33, 0, 0, 0, 9});
      CHECK(values(s, flags) == std::vector<uint64_t>(4, 0x01010101u));
      CHECK(values(s, locks) == after);
    }
  }
}
