// Shared regions (synclab_region_shared): programs/viz_shared.cu reduces T inputs per block in the
// __shared__ array `partial`. The trace must hold each block's writes to its own copy, and the
// model must show the chosen block's copy. The expected values come from a host computation of
// the same tree (not from the trace): element t of block b takes the values
//   in[b*T + t], then, for each step s = T/2, T/4, ... with t < s, its value plus element t + s's.
#include "viz_test_util.h"

#include <synclab/catch.h>
#include <synclab/trace_reader.h>

#include <map>

using namespace vt;

namespace {

constexpr int T = 64, B = 3;  // as in programs/viz_shared.cu
int input(int i) { return (i * 7 + 3) % 11 + 1; }

// The values element t of block b takes, in order (host reference).
std::vector<std::vector<uint64_t>> host_history(int b) {
  std::vector<int64_t> p(T);
  std::vector<std::vector<uint64_t>> h(T);
  for (int t = 0; t < T; ++t) {
    p[size_t(t)] = input(b * T + t);
    h[size_t(t)].push_back(uint64_t(p[size_t(t)]));
  }
  for (int s = T / 2; s > 0; s /= 2)
    for (int t = 0; t < s; ++t) {
      p[size_t(t)] += p[size_t(t + s)];
      h[size_t(t)].push_back(uint64_t(p[size_t(t)]));
    }
  return h;
}

const nlohmann::json* shared_region(const synclab::trace::Trace& t, const std::string& name) {
  for (const nlohmann::json& r : t.shared_regions)
    if (r.value("name", "") == name) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("shared: every block's writes to its __shared__ array are recorded", "[viz][shared]") {
  for (const char* model : {"its", "lockstep"}) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_SHARED_EXE, "shared", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);  // the sums were right and every bad registration was refused
      // the refusals say what is wrong
      CHECK(rec.log().find("no __shared__ variable named 'no_such_array'") != std::string::npos);
      CHECK(rec.log().find("fewer than the region's 512") != std::string::npos);
      CHECK(rec.log().find("is not a __global__ function") != std::string::npos);

      std::string err;
      auto t = synclab::trace::load(rec.path, &err);
      INFO(err);
      REQUIRE(t);
      CHECK(t->warning.empty());
      const nlohmann::json* r = shared_region(*t, "partial");
      REQUIRE(r);
      CHECK((*r)["space"] == "shared");
      CHECK((*r)["variable"] == "partial");
      CHECK((*r)["kind"] == "array");
      CHECK((*r)["bytes"] == T * 4);
      CHECK((*r)["dims"] == nlohmann::json::array({T}));
      CHECK(t->shared_regions.size() == 1);  // the refused ones are not in the trace
      const uint64_t id = (*r)["id"].get<uint64_t>();
      REQUIRE(t->launches.size() == 1);
      const synclab::trace::Launch& L = t->launches[0];
      REQUIRE(L.json.contains("shared_regions"));
      CHECK(L.json["shared_regions"][0]["id"] == id);
      const uint64_t wpb = L.warps_per_block;
      REQUIRE(wpb == 2);

      // Per block and element, the values written, in trace order.
      std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> got;
      uint64_t updates = 0;
      for (size_t i = L.first_event; i < L.end_event; ++i) {
        const Event& e = t->event(i);
        if (e.kind != uint8_t(EventKind::RegionUpdate) || (e.aux & synclab::trace::kRegionIdMask) != id) continue;
        CHECK_FALSE(e.aux & synclab::trace::kRegionSnapshot);  // shared memory has no starting contents
        REQUIRE(e.a < uint64_t(T));
        got[{e.warp / wpb, e.a}].push_back(e.b);
        ++updates;
      }
      uint64_t want_updates = 0;
      for (int b = 0; b < B; ++b) {
        const auto h = host_history(b);
        for (int t2 = 0; t2 < T; ++t2) {
          INFO("block " << b << " element " << t2);
          CHECK(got[{uint64_t(b), uint64_t(t2)}] == h[size_t(t2)]);
          want_updates += h[size_t(t2)].size();
        }
      }
      CHECK(updates == want_updates);  // 3 blocks x (64 loads + 63 sums)

      // The model shows the chosen block's copy.
      std::unique_ptr<Model> m = open_ok(rec.path);
      CHECK(m->warning().empty());
      const int ri = region_named(*m, "partial");
      REQUIRE(ri >= 0);
      const RegionInfo& R = m->regions()[size_t(ri)];
      CHECK(R.shared);
      CHECK(R.variable == "partial");
      CHECK(R.cells == uint64_t(T));
      CHECK(m->launches()[0].shared_offset[size_t(ri)] >= 0);
      const uint64_t last = m->launches()[0].steps - 1;
      for (int b = 0; b < B; ++b) {
        StateOptions o;
        o.block = uint64_t(b);
        State s = m->state_at(0, last, o);
        const RegionView& v = s.regions[size_t(ri)];
        CHECK(v.block == b);
        REQUIRE(v.cells.size() == size_t(T));
        const auto h = host_history(b);
        for (int t2 = 0; t2 < T; ++t2) {
          INFO("block " << b << " element " << t2);
          CHECK(v.cells[size_t(t2)].value == h[size_t(t2)].back());
          REQUIRE(v.cells[size_t(t2)].writer_warp != kNoWarp);
          CHECK(v.cells[size_t(t2)].writer_warp / 2 == uint32_t(b));  // written by its own block
        }
        // before the launch's first event nothing is written
        State s0 = m->state_at(0, 0, o);
        for (const CellView& c : s0.regions[size_t(ri)].cells) CHECK(c.writer_cursor == kNoCursor);
      }
      // A block beyond the launch shows the last block.
      StateOptions far;
      far.block = 99;
      CHECK(m->state_at(0, last, far).regions[size_t(ri)].block == B - 1);

      // Step by step: when element 0 of block 1 first holds the sum of its first two steps, the
      // other elements hold what the host's tree has at that point.
      StateOptions o1;
      o1.block = 1;
      const auto h1 = host_history(1);
      uint64_t at = kNoCursor;
      for (uint64_t c = 0; c <= last && at == kNoCursor; ++c) {
        const Event& e = m->event_at(0, c);
        if (e.kind == uint8_t(EventKind::RegionUpdate) && (e.aux & 0xff) == id && e.warp / 2 == 1 && e.a == 0 &&
            e.b == h1[0][2])
          at = c;
      }
      REQUIRE(at != kNoCursor);
      const State s1 = m->state_at(0, at, o1);
      CHECK(s1.regions[size_t(ri)].cells[0].value == h1[0][2]);
      // elements 32..63 never change after their load
      for (int t2 = 32; t2 < T; ++t2) CHECK(s1.regions[size_t(ri)].cells[size_t(t2)].value == h1[size_t(t2)][0]);

      // --step most/max for one block: the sum of block 2's copy peaks when all loads are in
      // (the tree's later steps only move values down, the total of a copy never grows after).
      const uint64_t pk = m->peak(0, {ri}, Model::PeakMeasure::Sum, 2);
      REQUIRE(pk != kNoCursor);
      StateOptions o2;
      o2.block = 2;
      uint64_t sum = 0;
      for (const CellView& c : m->state_at(0, pk, o2).regions[size_t(ri)].cells) sum += c.value;
      uint64_t want = 0;
      for (int t2 = 0; t2 < T; ++t2) want += uint64_t(input(2 * T + t2));
      CHECK(sum >= want);
    }
  }
}

TEST_CASE("shared: a missing barrier shows in the recorded steps", "[viz][shared]") {
  // Without __syncthreads between the steps, warp 0's step reads partial[t + s] of warp 1 before
  // warp 1 has written it (round-robin and ITS: warp 0 runs ahead), so some block's element 0
  // ends with a sum other than the host's; the race checker says so too.
  Recorded rec(VIZ_SHARED_EXE, "shared-missing", "its", "--missing-barrier");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  std::unique_ptr<Model> m = open_ok(rec.path);
  const int ri = region_named(*m, "partial");
  REQUIRE(ri >= 0);
  bool any_wrong = false;
  for (int b = 0; b < B; ++b) {
    StateOptions o;
    o.block = uint64_t(b);
    const State s = m->state_at(0, m->launches()[0].steps - 1, o);
    REQUIRE(s.regions[size_t(ri)].cells.size() == size_t(T));
    any_wrong = any_wrong || s.regions[size_t(ri)].cells[0].value != host_history(b)[0].back();
  }
  bool race = false;
  for (const ReportInfo& r : m->reports()) race = race || r.kind == "race";
  CHECK((any_wrong || race));
  CHECK(race);
}

TEST_CASE("shared: an extern __shared__ array named for every kernel that has it", "[viz][shared]") {
  // --dynamic: after tree_reduce, tile_fill writes 100 * block + t into extern __shared__ tile
  // (8 x 8), registered with kernel nullptr. tree_reduce has no tile, tile_fill no partial.
  Recorded rec(VIZ_SHARED_EXE, "shared-dynamic", "its", "--dynamic");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  std::unique_ptr<Model> m = open_ok(rec.path);
  CHECK(m->warning().empty());
  REQUIRE(m->launches().size() == 2);
  const int partial = region_named(*m, "partial"), tile = region_named(*m, "tile");
  REQUIRE(partial >= 0);
  REQUIRE(tile >= 0);
  const RegionInfo& R = m->regions()[size_t(tile)];
  CHECK(R.shared);
  CHECK(R.kernel.empty());
  CHECK(R.kind == RegionKind::Matrix);
  CHECK(R.rows == 8);
  CHECK(R.cols == 8);
  // where each launch has which array
  CHECK(m->launches()[0].shared_offset[size_t(partial)] >= 0);
  CHECK(m->launches()[0].shared_offset[size_t(tile)] == -1);
  CHECK(m->launches()[1].shared_offset[size_t(partial)] == -1);
  CHECK(m->launches()[1].shared_offset[size_t(tile)] >= 0);
  for (int b = 0; b < B; ++b) {
    StateOptions o;
    o.block = uint64_t(b);
    const State s = m->state_at(1, m->launches()[1].steps - 1, o);
    CHECK(s.regions[size_t(partial)].cells.empty());  // not in this launch
    const RegionView& v = s.regions[size_t(tile)];
    REQUIRE(v.cells.size() == 64);
    for (int t2 = 0; t2 < 64; ++t2) {
      INFO("block " << b << " element " << t2);
      CHECK(v.cells[size_t(t2)].value == uint64_t(100 * b + t2));
      CHECK(v.cells[size_t(t2)].completion_cursor != kNoCursor);
    }
    // launch 0 has no tile
    CHECK(m->state_at(0, m->launches()[0].steps - 1, o).regions[size_t(tile)].cells.empty());
  }
}

TEST_CASE("shared: traces without shared regions open as before", "[viz][shared]") {
  // A trace recorded before SharedRegion chunks existed (the fuzz corpus keeps some).
  const std::string old = std::string(VIZ_CORPUS_DIR) + "/lost-update.trace";
  std::unique_ptr<Model> m = open_ok(old);
  CHECK(m->trace().shared_regions.empty());
  REQUIRE(!m->regions().empty());
  for (const RegionInfo& r : m->regions()) CHECK_FALSE(r.shared);
  for (const LaunchInfo& L : m->launches())
    for (int64_t off : L.shared_offset) CHECK(off == -1);
  // and its regions' views are whole, with no block
  const State s = m->state_at(0, m->launches()[0].steps - 1);
  for (const RegionView& v : s.regions) {
    CHECK(v.block == -1);
    CHECK(v.cells.size() == m->regions()[size_t(v.region)].cells);
  }
}

TEST_CASE("shared: a malformed SharedRegion chunk is skipped with a message naming the file and byte",
          "[viz][shared]") {
  const std::string path = temp_path("bad-shared");
  {
    synclab::trace::Writer w;
    std::string err;
    REQUIRE(w.open(path, {{"program", "bad"}, {"backend", "sim"}}, false, {}, &err));
    w.region(synclab::trace::region_json(0, "g", "array", 0x1000, 16, 32, {4}));
    w.shared_region({{"id", 1}, {"name", "s"}, {"kind", "array"}, {"variable", "s"}, {"bytes", 16},
                     {"elem_bits", 32}, {"dims", {5}}});  // 5 elements of 4 bytes in 16 bytes
    w.shared_region({{"id", 2}, {"name", "t"}, {"kind", "array"}, {"variable", "t"}, {"bytes", 16},
                     {"elem_bits", 32}, {"dims", {4}}});
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {2, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1},
              {"shared_regions", {{{"id", 2}, {"offset", 0}}, {{"id", 7}, {"offset", 0}}}}});
    w.event(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, 2));
    w.event(ev(1, 1, EventKind::WarpStep, 0xff, 0, 1, 1));
    w.event(ev(1, 1, EventKind::RegionUpdate, 3, 2, 3, 42));   // block 1, element 3
    w.event(ev(1, 1, EventKind::RegionUpdate, 3, 2, 9, 42));   // element out of range: skipped
    w.event(ev(1, 5, EventKind::RegionUpdate, 3, 2, 1, 42));   // a warp beyond the launch: skipped
    // relaxed memory model: block 1's write of shared offset 12 (element 3) is buffered
    using synclab::trace::MemoryModelKind;
    using synclab::trace::MemSpace;
    w.event(ev(1, 1, EventKind::MemoryModel, 3,
               uint16_t(uint16_t(MemoryModelKind::Buffered) | (uint16_t(MemSpace::Shared) << 8) | (2 << 11)), 12, 42));
    w.event(ev(2, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
    w.close();
  }
  std::string err;
  std::unique_ptr<Model> m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  INFO(m->warning());
  CHECK(m->warning().find(path + ": byte ") != std::string::npos);
  CHECK(m->warning().find("skipped a SharedRegion chunk: the dims do not fit in \"bytes\"") != std::string::npos);
  CHECK(m->warning().find("names region 7, which no SharedRegion chunk describes") != std::string::npos);
  CHECK(m->warning().find("2 events name a warp") != std::string::npos);
  REQUIRE(m->regions().size() == 2);  // "g" and "t"
  const int ti = region_named(*m, "t");
  REQUIRE(ti >= 0);
  StateOptions o;
  o.block = 1;
  const State s = m->state_at(0, 4, o);
  REQUIRE(s.regions[size_t(ti)].cells.size() == 4);
  CHECK(s.regions[size_t(ti)].cells[3].value == 42);
  CHECK(s.regions[size_t(ti)].cells[3].buffered_cursor == kNoCursor);
  CHECK(m->event_at(0, 5).kind == uint8_t(EventKind::MemoryModel));
  CHECK(m->state_at(0, 5, o).regions[size_t(ti)].cells[3].buffered_cursor == 5);
  o.block = 0;
  CHECK(m->state_at(0, 4, o).regions[size_t(ti)].cells[3].value == 0);
  CHECK(m->state_at(0, 5, o).regions[size_t(ti)].cells[3].buffered_cursor == kNoCursor);
  // the global region at address 0x1000 is not touched by a shared-memory event at offset 12
  const State s5 = m->state_at(0, 5, o);
  for (const CellView& c : s5.regions[size_t(region_named(*m, "g"))].cells) CHECK(c.buffered_cursor == kNoCursor);
  std::remove(path.c_str());
}
