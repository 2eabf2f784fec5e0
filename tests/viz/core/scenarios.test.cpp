// The model on traces the real simulator records from small CUDA programs (programs/*.cu). The
// expected lane states come from what each program does, not from the model's output.
#include "viz_test_util.h"

#include <synclab/catch.h>

#include <algorithm>
#include <set>

using namespace vt;

namespace {

const char* const kModels[] = {"its", "lockstep"};

std::vector<uint64_t> all_marks(const Model& m, int launch, Mark k, uint32_t warp = kNoWarp) {
  std::vector<uint64_t> v;
  for (uint64_t c = m.next(launch, kNoCursor, k, warp); c != kNoCursor; c = m.next(launch, c, k, warp)) v.push_back(c);
  return v;
}

bool all_lanes(const WarpView& w, LaneState s, uint32_t mask = 0xffffffffu) {
  for (int l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && w.lanes[l] != s) return false;
  return true;
}

std::string lanes_text(const WarpView& w) {
  std::string s;
  for (int l = 0; l < 32; ++l) s += std::string(l ? "," : "") + lane_state_name(w.lanes[l]);
  return s;
}

}  // namespace

TEST_CASE("barrier: a warp's lanes wait at __syncthreads until the block's release", "[viz][barrier]") {
  const uint32_t barrier_line = marker_line(VIZ_BARRIER_SRC, "VIZ-BARRIER");
  REQUIRE(barrier_line > 0);
  for (const char* model : kModels) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_BARRIER_EXE, "barrier", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);
      auto m = open_ok(rec.path);
      CHECK(m->complete());
      CHECK(m->header().backend == "sim");
      CHECK(m->header().model == model);
      REQUIRE(m->launches().size() == 1);
      const LaunchInfo& L = m->launches()[0];
      CHECK(L.warps == 2);
      CHECK(L.warps_per_block == 2);
      CHECK(L.block[0] == 64);
      CHECK(L.status == LaunchStatus::Ok);
      CHECK(L.display.find("mirror") != std::string::npos);

      // Two warps arrive (one BarrierArrive each: their 32 lanes arrive together), then one release.
      const auto arrives = all_marks(*m, 0, Mark::BarrierArrive);
      const auto releases = all_marks(*m, 0, Mark::BarrierRelease);
      REQUIRE(arrives.size() == 2);
      REQUIRE(releases.size() == 1);
      const uint32_t first = m->event_at(0, arrives[0]).warp;
      const uint32_t second = m->event_at(0, arrives[1]).warp;
      REQUIRE(first != second);
      REQUIRE(arrives[1] < releases[0]);

      // Warp 0's arrival: its lanes wait; warp 1 is not at the barrier unless it got there first.
      const uint64_t w0_arrive = m->next(0, kNoCursor, Mark::BarrierArrive, 0);
      REQUIRE(w0_arrive != kNoCursor);
      State s = m->state_at(0, w0_arrive);
      REQUIRE(s.warps.size() == 2);
      INFO("warp 0: " << lanes_text(s.warps[0]) << "\nwarp 1: " << lanes_text(s.warps[1]));
      CHECK(all_lanes(s.warps[0], LaneState::AtBarrier));
      CHECK(s.warps[0].at_barrier == 0xffffffffu);
      CHECK(s.warps[0].line == barrier_line);
      if (first == 0) {
        CHECK(s.warps[1].at_barrier == 0);
        for (int l = 0; l < 32; ++l) CHECK(s.warps[1].lanes[l] != LaneState::AtBarrier);
        // warp 1 has not arrived: it is running (or, if it never ran yet, inactive)
        CHECK((all_lanes(s.warps[1], LaneState::Active) || all_lanes(s.warps[1], LaneState::Inactive)));
      } else {
        CHECK(all_lanes(s.warps[1], LaneState::AtBarrier));
      }
      // The first arrival, whichever warp: that warp waits, the other does not.
      s = m->state_at(0, arrives[0]);
      CHECK(all_lanes(s.warps[first], LaneState::AtBarrier));
      CHECK(s.warps[second].at_barrier == 0);
      // The second arrival: everybody waits (the release is the next event).
      s = m->state_at(0, arrives[1]);
      CHECK(all_lanes(s.warps[0], LaneState::AtBarrier));
      CHECK(all_lanes(s.warps[1], LaneState::AtBarrier));
      // After the release both warps are running again: all their lanes executed their last step.
      s = m->state_at(0, releases[0]);
      CHECK(all_lanes(s.warps[0], LaneState::Active));
      CHECK(all_lanes(s.warps[1], LaneState::Active));
      const uint64_t after = m->next(0, releases[0], Mark::WarpStep, 0);
      REQUIRE(after != kNoCursor);
      s = m->state_at(0, after);
      CHECK(all_lanes(s.warps[0], LaneState::Active));
      CHECK(s.warps[0].line > barrier_line);

      // One barrier-wait span per warp, closed by the release.
      int waits = 0;
      for (const Span& sp : m->spans(0))
        if (sp.kind == SpanKind::BarrierWait) {
          ++waits;
          CHECK(sp.last == releases[0]);
          CHECK(sp.lanes == 0xffffffffu);
          CHECK_FALSE(sp.open_at_end);
        }
      CHECK(waits == 2);
      // No report, no lock: the viewer opens at the release.
      CHECK(m->reports().empty());
      CHECK(m->first_interesting(0) == releases[0]);
      // At the end every lane has exited.
      s = m->state_at(0, L.steps - 1);
      CHECK(all_lanes(s.warps[0], LaneState::Exited));
      CHECK(all_lanes(s.warps[1], LaneState::Exited));
      // Before the launch's first event nothing ran.
      s = m->state_at(0, 0);
      CHECK(all_lanes(s.warps[0], LaneState::Inactive));
      CHECK(all_lanes(s.warps[1], LaneState::Inactive));
    }
  }
}

TEST_CASE("divergence: the lanes not on a branch's side are masked off", "[viz][divergence]") {
  const uint32_t then_line = marker_line(VIZ_DIVERGENCE_SRC, "VIZ-THEN");
  const uint32_t else_line = marker_line(VIZ_DIVERGENCE_SRC, "VIZ-ELSE");
  REQUIRE(then_line > 0);
  REQUIRE(else_line > 0);
  for (const char* model : kModels) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_DIVERGENCE_EXE, "divergence", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);
      auto m = open_ok(rec.path);
      REQUIRE(m->launches().size() == 1);
      REQUIRE(m->launches()[0].warps == 1);
      int then_steps = 0, else_steps = 0;
      for (uint64_t c : all_marks(*m, 0, Mark::WarpStep, 0)) {
        const Event& e = m->event_at(0, c);
        const uint32_t line = uint32_t(e.b);
        if (line != then_line && line != else_line) continue;
        const State s = m->state_at(0, c);
        const WarpView& w = s.warps[0];
        INFO("cursor " << c << " line " << line << ": " << lanes_text(w));
        CHECK(w.line == line);
        CHECK(m->file_path(0, w.file).find("viz_divergence.cu") != std::string::npos);
        if (line == then_line) {
          ++then_steps;
          CHECK(w.last_mask == 0x0000ffffu);
          CHECK(all_lanes(w, LaneState::Active, 0x0000ffffu));
          CHECK(all_lanes(w, LaneState::MaskedOff, 0xffff0000u));
          const SourceFunction* f = m->function(0, w.function);
          REQUIRE(f);
          CHECK(f->display.find("low_half") != std::string::npos);
          REQUIRE(w.pc < f->lines.size());
          CHECK(f->lines[w.pc] == then_line);
        } else {
          ++else_steps;
          CHECK(w.last_mask == 0xffff0000u);
          CHECK(all_lanes(w, LaneState::Active, 0xffff0000u));
          CHECK(all_lanes(w, LaneState::MaskedOff, 0x0000ffffu));
        }
      }
      CHECK(then_steps > 0);
      CHECK(else_steps > 0);
      // The source text is there for the viewer's source pane.
      const std::vector<std::string>* lines = m->source_lines(VIZ_DIVERGENCE_SRC);
      REQUIRE(lines);
      REQUIRE(lines->size() >= then_line);
      CHECK((*lines)[then_line - 1].find("VIZ-THEN") != std::string::npos);
      CHECK(m->source_lines("/nonexistent/file.cu") == nullptr);
    }
  }
}

TEST_CASE("naive intra-warp lock under lockstep: one lane holds the lock, the rest spin", "[viz][lock]") {
  const uint32_t spin_line = marker_line(VIZ_LOCK_SRC, "VIZ-SPIN");
  REQUIRE(spin_line > 0);
  Recorded rec(VIZ_LOCK_EXE, "lock", "lockstep");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  CHECK(rec.status != 0);  // the program cannot finish
  auto m = open_ok(rec.path);
  REQUIRE(m->launches().size() == 1);
  const LaunchInfo& L = m->launches()[0];
  CHECK((L.status == LaunchStatus::Hang || L.status == LaunchStatus::Deadlock));
  const int lock = region_named(*m, "lock");
  REQUIRE(lock >= 0);
  CHECK(m->regions()[size_t(lock)].kind == RegionKind::LockBits);
  CHECK(m->regions()[size_t(lock)].cells == 32);

  // A deadlock/hang report, with its Report event; the viewer opens there.
  REQUIRE(!m->reports().empty());
  const auto& rl = m->launch_reports(0);
  REQUIRE(!rl.empty());
  const ReportInfo& r = m->reports()[rl[0]];
  CHECK((r.kind == "hang" || r.kind == "deadlock"));
  CHECK(r.line == spin_line);
  REQUIRE(r.cursor != kNoCursor);
  CHECK(m->event_at(0, r.cursor).kind == uint8_t(EventKind::Report));
  CHECK(m->first_interesting(0) == r.cursor);
  CHECK(m->next(0, kNoCursor, Mark::Report) == r.cursor);

  // The lock was taken exactly once and never released.
  const auto acquires = all_marks(*m, 0, Mark::Acquire);
  REQUIRE(acquires.size() == 1);
  CHECK(all_marks(*m, 0, Mark::Release).empty());
  const uint8_t holder = m->event_at(0, acquires[0]).lane;
  REQUIRE(holder < 32);

  // At the report: the holder is in its critical section, its 31 warp-mates spin.
  State s = m->state_at(0, r.cursor);
  const WarpView& w = s.warps[0];
  INFO(lanes_text(w));
  for (int l = 0; l < 32; ++l) CHECK(w.lanes[l] == (l == holder ? LaneState::InCritical : LaneState::Spinning));
  CHECK(w.critical == 1u << holder);
  CHECK(w.spinning == (0xffffffffu & ~(1u << holder)));
  const CellView& bit0 = s.regions[size_t(lock)].cells[0];
  CHECK(bit0.value == 1);
  CHECK(bit0.owner_warp == 0);
  CHECK(bit0.owner_lane == holder);
  CHECK(bit0.owner_cursor == acquires[0]);
  for (size_t i = 1; i < 32; ++i) CHECK(s.regions[size_t(lock)].cells[i].value == 0);

  // Just before the acquire nobody holds the lock.
  s = m->state_at(0, acquires[0] - 1);
  CHECK(s.warps[0].critical == 0);
  CHECK(s.regions[size_t(lock)].cells[0].value == 0);
  CHECK(s.regions[size_t(lock)].cells[0].owner_lane == kNoLane);

  // The timeline: the spin at the loop's line, still open at the end, and the open critical section.
  bool spin = false, cs = false;
  for (const Span& sp : m->spans(0)) {
    if (sp.kind == SpanKind::Spin && sp.info == spin_line && sp.open_at_end) {
      spin = true;
      CHECK((sp.lanes & ~(1u << holder)) == (0xffffffffu & ~(1u << holder)));
      CHECK(m->next(0, kNoCursor, Mark::SpinStart) <= sp.first);
    }
    if (sp.kind == SpanKind::CriticalSection) {
      cs = true;
      CHECK(sp.lane == holder);
      CHECK(sp.open_at_end);
      CHECK(sp.first == acquires[0]);
    }
  }
  CHECK(spin);
  CHECK(cs);
}

TEST_CASE("naive intra-warp lock under ITS: 32 acquisitions, one holder at a time", "[viz][lock]") {
  Recorded rec(VIZ_LOCK_EXE, "lock", "its");
  INFO(rec.log());
  REQUIRE(!rec.path.empty());
  REQUIRE(rec.status == 0);
  auto m = open_ok(rec.path);
  const LaunchInfo& L = m->launches().at(0);
  CHECK(L.status == LaunchStatus::Ok);
  const int lock = region_named(*m, "lock");
  REQUIRE(lock >= 0);
  const auto acquires = all_marks(*m, 0, Mark::Acquire);
  const auto releases = all_marks(*m, 0, Mark::Release);
  REQUIRE(acquires.size() == 32);  // each thread takes the lock once
  REQUIRE(releases.size() == 32);
  std::set<uint8_t> holders;
  Player p(*m, 0);
  State s;
  for (size_t i = 0; i < acquires.size(); ++i) {
    CHECK(acquires[i] < releases[i]);
    if (i + 1 < acquires.size()) CHECK(releases[i] < acquires[i + 1]);
    const uint8_t lane = m->event_at(0, acquires[i]).lane;
    holders.insert(lane);
    p.seek(acquires[i]);
    p.state(&s);
    INFO("acquire " << i << ": " << lanes_text(s.warps[0]));
    CHECK(s.warps[0].lanes[lane] == LaneState::InCritical);
    CHECK(s.warps[0].critical == 1u << lane);  // mutual exclusion
    CHECK(s.regions[size_t(lock)].cells[0].owner_lane == lane);
    // The holder's release: the same lane clears the bit.
    CHECK(m->event_at(0, releases[i]).lane == lane);
    p.seek(releases[i]);
    p.state(&s);
    CHECK(s.warps[0].critical == 0);
    CHECK(s.regions[size_t(lock)].cells[0].value == 0);
  }
  CHECK(holders.size() == 32);
  s = m->state_at(0, L.steps - 1);
  CHECK(all_lanes(s.warps[0], LaneState::Exited));
}

TEST_CASE("wavefront: matrix cells complete along anti-diagonals", "[viz][wavefront]") {
  const uint32_t cell_line = marker_line(VIZ_WAVEFRONT_SRC, "VIZ-CELL");
  REQUIRE(cell_line > 0);
  for (const char* model : kModels) {
    SECTION(std::string("model ") + model) {
      Recorded rec(VIZ_WAVEFRONT_EXE, "wavefront", model);
      INFO(rec.log());
      REQUIRE(!rec.path.empty());
      REQUIRE(rec.status == 0);
      auto m = open_ok(rec.path);
      const int g = region_named(*m, "grid");
      REQUIRE(g >= 0);
      const RegionInfo& R = m->regions()[size_t(g)];
      CHECK(R.kind == RegionKind::Matrix);
      REQUIRE(R.rows == 8);
      REQUIRE(R.cols == 8);
      const LaunchInfo& L = m->launches().at(0);
      const State end = m->state_at(0, L.steps - 1);
      const auto& cells = end.regions[size_t(g)].cells;
      REQUIRE(cells.size() == 64);
      // Values: Pascal's triangle, C(i + j, i).
      uint64_t want[8][8];
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) want[i][j] = (i == 0 || j == 0) ? 1 : want[i - 1][j] + want[i][j - 1];
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          const CellView& c = cells[size_t(i * 8 + j)];
          INFO("cell " << i << "," << j);
          CHECK(c.value == want[i][j]);
          REQUIRE(c.completion_cursor != kNoCursor);
          CHECK(c.writer_warp == 0);
          CHECK(c.writer_lane == i);  // thread i computes row i
          CHECK(m->event_at(0, c.completion_cursor).kind == uint8_t(EventKind::RegionUpdate));
        }
      // Completion steps grow strictly from one anti-diagonal to the next.
      for (int a = 0; a < 64; ++a)
        for (int b = 0; b < 64; ++b) {
          const int da = a / 8 + a % 8, db = b / 8 + b % 8;
          if (da < db) {
            INFO("cells " << a << " and " << b);
            CHECK(cells[size_t(a)].completion_time < cells[size_t(b)].completion_time);
            CHECK(cells[size_t(a)].completion_cursor < cells[size_t(b)].completion_cursor);
          }
        }
      // When cell (3, 4) (diagonal 7) completes: diagonals 0-6 are done, 8 and later are not.
      const uint64_t c34 = cells[3 * 8 + 4].completion_cursor;
      const State mid = m->state_at(0, c34);
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
          const CellView& c = mid.regions[size_t(g)].cells[size_t(i * 8 + j)];
          INFO("cell " << i << "," << j);
          if (i + j <= 6) CHECK(c.completion_cursor != kNoCursor);
          if (i + j >= 8) {
            CHECK(c.completion_cursor == kNoCursor);
            CHECK(c.value == 0);
          }
        }
      CHECK(mid.regions[size_t(g)].cells[3 * 8 + 4].value == want[3][4]);
      CHECK(mid.warps[0].line == cell_line);
    }
  }
}
