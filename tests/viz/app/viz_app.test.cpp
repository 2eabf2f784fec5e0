// Tests of synclab-viz: it is run as a program (a real window under Xvfb, or offscreen export),
// and the colours of known cells are read back from its pixels. The expected states come from the
// trace itself, read here with synclab::trace (not through the viz model): e.g. the event where
// warp 0 arrives at the barrier, the lanes a spin interval names, the lock bits replayed from
// the RegionUpdate events. The colours are the viewer's palette (viz/app/palette.h).
//
// Cell rectangles come from --dump-layout (JSON), pixels from the PNG the run wrote (window mode:
// --screenshot of the back buffer; export: the exported PNG). Artifacts stay in VIZ_ARTIFACTS.
#include <stb/stb_image.h>
#ifdef SYNCLAB_VIZ_GIFLIB
#include <gif_lib.h>
#endif
#include <synclab/catch.h>
#include <synclab/trace_analysis.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app_test_util.h"
#include "palette.h"

namespace tr = synclab::trace;
namespace pal = synclab::viz::palette;

namespace {

using namespace vapp;

// Global index of the first event of a kind (and warp, unless ~0u) in launch 0; SIZE_MAX if none.
size_t find_event(const tr::Trace& t, tr::EventKind k, uint32_t warp = ~0u, size_t from = 0) {
  const tr::Launch& L = t.launches[0];
  for (size_t i = std::max(from, L.first_event); i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind == uint8_t(k) && (warp == ~0u || e.warp == warp)) return i;
  }
  return SIZE_MAX;
}

// ---- barrier: warp 0 arrives first; warp 1 is diverged before ------------------------------------
struct BarrierFacts {
  uint64_t arrive0 = 0;   // cursor of warp 0's BarrierArrive
  uint64_t diverged = 0;  // cursor of a WarpStep of warp 1 with half the lanes active
  uint32_t diverged_mask = 0;
};

BarrierFacts barrier_facts() {
  auto t = load_trace("barrier.trace");
  const tr::Launch& L = t->launches[0];
  BarrierFacts f;
  const size_t a0 = find_event(*t, tr::EventKind::BarrierArrive, 0);
  const size_t a1 = find_event(*t, tr::EventKind::BarrierArrive, 1);
  const size_t rel = find_event(*t, tr::EventKind::BarrierRelease);
  REQUIRE(a0 != SIZE_MAX);
  REQUIRE(a1 != SIZE_MAX);
  REQUIRE(rel != SIZE_MAX);
  REQUIRE(a0 < a1);  // the program makes warp 0 wait for warp 1
  REQUIRE(a1 < rel);
  REQUIRE((t->event(a0).a >> 5 & 1) == 1);  // lane 5 arrives with warp 0
  f.arrive0 = a0 - L.first_event;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t->event(i);
    const uint32_t mask = uint32_t(e.a);
    if (e.kind == uint8_t(tr::EventKind::WarpStep) && e.warp == 1 && (mask == 0x0000ffffu || mask == 0xffff0000u)) {
      f.diverged = i - L.first_event;
      f.diverged_mask = mask;
      break;
    }
  }
  REQUIRE(f.diverged_mask != 0);
  return f;
}

void check_barrier_frame(const Image& img, const Layout& lay) {
  // Warp 0 (all 32 lanes arrived) waits; warp 1 has not arrived.
  for (int l : {0, 5, 31}) CHECK_COLOUR(img, lay, "lanes:0:" + std::to_string(l), pal::kLaneAtBarrier);
  CHECK(lay.cells.at("lanes:0:5").what == "at barrier");
  const pal::Rgb w1 = centre(img, lay, "lanes:1:5");
  CHECK(w1 != pal::kLaneAtBarrier);
  CHECK((w1 == pal::kLaneActive || w1 == pal::kLaneMaskedOff));
}

// ---- flagship: the naive lock under lockstep -----------------------------------------------------
struct FlagshipFacts {
  uint64_t report = 0;    // cursor of the Report event
  int owner = -1;         // lane that set the lock bit
  uint32_t spinners = 0;  // lanes of the spin still open at the end
};

FlagshipFacts flagship_facts() {
  auto t = load_trace("flagship.trace");
  const tr::Launch& L = t->launches[0];
  FlagshipFacts f;
  const size_t rep = find_event(*t, tr::EventKind::Report);
  REQUIRE(rep != SIZE_MAX);
  f.report = rep - L.first_event;
  // The update that set bit 0 of the lock (byte-wide updates: bit k of b is element a + k).
  for (size_t i = L.first_event; i < rep; ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind != uint8_t(tr::EventKind::RegionUpdate)) continue;
    const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
    const bool sets0 = bytes ? (e.a == 0 && (e.b & 1)) : (e.a == 0 && e.b != 0);
    if (sets0) f.owner = e.lane;
  }
  REQUIRE(f.owner >= 0);
  REQUIRE(f.owner < 32);
  for (const tr::Interval& iv : tr::analyze(*t))
    if (iv.kind == tr::IntervalKind::Spin && iv.warp == 0 && iv.open_at_end) f.spinners |= iv.lanes;
  REQUIRE(f.spinners != 0);
  REQUIRE((f.spinners >> f.owner & 1) == 0);
  return f;
}

void check_flagship_frame(const Image& img, const Layout& lay, const FlagshipFacts& f) {
  CHECK_COLOUR(img, lay, "locks:0:0", pal::kLockHeld);  // the lock bit
  CHECK_COLOUR(img, lay, "locks:0:1", pal::kLockFree);  // the next bit of the word: never set
  CHECK_COLOUR(img, lay, "lanes:0:" + std::to_string(f.owner), pal::kLaneInCritical);
  for (int l = 0; l < 32; ++l)
    if (f.spinners >> l & 1) CHECK_COLOUR(img, lay, "lanes:0:" + std::to_string(l), pal::kLaneSpinning);
}

// Replays the lock-bit region of a launch from its RegionUpdate events: `bits` holds each bit;
// after each update, `after(index)` is called (return false to stop). Returns the number of bits
// that went from free to held on the way.
template <class Fn>
int replay_lock_bits(const tr::Trace& t, const tr::Launch& L, std::vector<int>& bits, Fn after) {
  int acquires = 0;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind != uint8_t(tr::EventKind::RegionUpdate)) continue;
    const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
    const unsigned n = bytes ? 8 * bytes : 1;
    for (unsigned k = 0; k < n; ++k) {
      const uint64_t el = e.a + k;
      if (el >= bits.size()) continue;
      const int v = bytes ? int(e.b >> k & 1) : int(e.b != 0);
      if (v && !bits[el]) ++acquires;
      bits[el] = v;
    }
    if (!after(i, acquires)) break;
  }
  return acquires;
}

}  // namespace

// ==== a real window (under Xvfb) ==================================================================

TEST_CASE("window: warp 0 waiting at __syncthreads is drawn in the barrier colour", "[window]") {
  const BarrierFacts f = barrier_facts();
  const std::string png = kArt + "/window_barrier.png", json = kArt + "/window_barrier.json";
  Run r = viz(kTraces + "/barrier.trace --step " + std::to_string(f.arrive0) +
              " --exit-after-frames 6 --size 1280x800 --screenshot " + png + " --dump-layout " + json);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(img.w == 1280);
  CHECK(img.h == 800);
  CHECK(lay.cursor == f.arrive0);
  check_barrier_frame(img, lay);
}

TEST_CASE("window: the lockstep naive lock shows the lock bit held and the warp-mates spinning", "[window]") {
  const FlagshipFacts f = flagship_facts();
  const std::string png = kArt + "/window_flagship.png", json = kArt + "/window_flagship.json";
  Run r = viz(kTraces + "/flagship.trace --step " + std::to_string(f.report) +
              " --exit-after-frames 6 --size 1280x800 --screenshot " + png + " --dump-layout " + json +
              " --probe locks:0:0");
  REQUIRE(r.status == 0);
  // --probe prints the same pixel the test reads.
  CHECK(r.out.find("probe locks:0:0 232 72 48 held") != std::string::npos);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  check_flagship_frame(img, lay, f);
}

// The event the window ended at ("window WxH, event N of launch L, F frames").
uint64_t final_event(const Run& r) {
  const size_t at = r.out.find(", event ");
  REQUIRE(at != std::string::npos);
  return std::strtoull(r.out.c_str() + at + 8, nullptr, 10);
}

TEST_CASE("window: keyboard shortcuts move the cursor", "[window]") {
  auto t = load_trace("barrier.trace");
  const tr::Launch& L = t->launches[0];
  const uint64_t n = L.event_count();
  const size_t rel = find_event(*t, tr::EventKind::BarrierRelease);
  REQUIRE(rel != SIZE_MAX);
  const std::string trace = kTraces + "/barrier.trace";
  const std::string common = " --exit-after-frames 3 --size 900x600";
  SECTION("arrows step one, Shift+arrows 100") {
    Run r = viz(trace + " --step 10 --keys right,right,left,shift+right" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == 10 + 1 + 1 - 1 + 100);
  }
  SECTION("Home and End") {
    Run r = viz(trace + " --step 10 --keys end" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == n - 1);
    Run r2 = viz(trace + " --step 10 --keys home" + common);
    REQUIRE(r2.status == 0);
    CHECK(final_event(r2) == 0);
  }
  SECTION("b jumps to the barrier release, B back") {
    Run r = viz(trace + " --step first --keys b" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == rel - L.first_event);
    Run r2 = viz(trace + " --step last --keys B" + common);
    REQUIRE(r2.status == 0);
    CHECK(final_event(r2) == rel - L.first_event);
  }
  SECTION("n jumps to the next report") {
    const FlagshipFacts f = flagship_facts();
    Run r = viz(kTraces + "/flagship.trace --step first --keys n" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == f.report);
  }
  SECTION("a jumps to the first lock acquire, A back to it") {
    // The flagship's first acquire: the first update that sets bit 0 of the lock from 0.
    auto ft = load_trace("flagship.trace");
    const tr::Launch& FL = ft->launches[0];
    uint64_t acquire = ~0ull;
    for (size_t i = FL.first_event; i < FL.end_event && acquire == ~0ull; ++i) {
      const tr::Event& e = ft->event(i);
      if (e.kind != uint8_t(tr::EventKind::RegionUpdate)) continue;
      const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
      if (bytes ? (e.a == 0 && (e.b & 1)) : (e.a == 0 && e.b != 0)) acquire = i - FL.first_event;
    }
    REQUIRE(acquire != ~0ull);
    Run r = viz(kTraces + "/flagship.trace --step first --keys a" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == acquire);
    Run r2 = viz(kTraces + "/flagship.trace --step last --keys A" + common);
    REQUIRE(r2.status == 0);
    CHECK(final_event(r2) == acquire);  // the only acquire: lane 0 never releases
  }
  SECTION("it opens at the first interesting event") {
    // No report in the barrier trace: its first barrier release (it has no lock bits).
    Run r = viz(trace + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == rel - L.first_event);
    // The flagship: its deadlock report, and a hint on how to watch it from the start.
    const FlagshipFacts f = flagship_facts();
    Run r2 = viz(kTraces + "/flagship.trace" + common);
    REQUIRE(r2.status == 0);
    CHECK(final_event(r2) == f.report);
  }
  SECTION("p saves the picture and prints the command that exports it") {
    const std::string dir = kArt + "/save_picture";
    REQUIRE(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()) == 0);
    Run r = viz(kTraces + "/barrier.trace --step 10 --keys p" + common, "cd " + dir + " && ");
    REQUIRE(r.status == 0);
    const std::string png = dir + "/barrier.event10.png";
    Image img;
    REQUIRE(img.load(png));
    CHECK(img.w == 900);
    CHECK(img.h == 600);
    CHECK(r.out.find("--export barrier.event10.png --step 10 --size 900x600") != std::string::npos);
  }
  SECTION("Space plays") {
    Run r = viz(trace + " --step first --keys up,up,up,up,space --exit-after-frames 60 --size 900x600");
    REQUIRE(r.status == 0);
    CHECK(final_event(r) > 0);
  }
}

TEST_CASE("window: clicking a report jumps to it, clicking a lane selects it", "[window]") {
  const FlagshipFacts f = flagship_facts();
  const std::string trace = kTraces + "/flagship.trace", json = kArt + "/window_click_layout.json";
  const std::string common = " --step first --size 1280x800 --exit-after-frames 4";
  // Where the report row and lane 7 are (the layout does not depend on the clicks before them).
  Run r0 = viz(trace + common + " --dump-layout " + json);
  REQUIRE(r0.status == 0);
  CHECK(r0.out.find("selected none") != std::string::npos);
  Layout lay;
  REQUIRE(lay.load(json));
  REQUIRE(lay.has("reports:0"));
  REQUIRE(lay.has("lanes:0:7"));
  auto click = [&](const std::string& id) {
    const Cell& c = lay.cells.at(id);
    return "click:" + std::to_string(int((c.x0 + c.x1) / 2)) + ":" + std::to_string(int((c.y0 + c.y1) / 2));
  };
  Run r1 = viz(trace + common + " --keys " + click("reports:0"));
  REQUIRE(r1.status == 0);
  CHECK(final_event(r1) == f.report);
  CHECK(r1.out.find("selected 0:") != std::string::npos);  // a lane the report names
  Run r2 = viz(trace + common + " --keys " + click("lanes:0:7"));
  REQUIRE(r2.status == 0);
  CHECK(r2.out.find("selected 0:7") != std::string::npos);
  CHECK(final_event(r2) == 0);
}

// ==== performance counters (SYNCLAB_PROFILE) in the Reports window ==================================
// profile.trace: tests/profile/patterns.cu recorded with SYNCLAB_PROFILE=1; each launch's counters
// are a note in the trace. Expected titles come from the trace file (read here, not through the
// viewer's model); the stride-2 kernel's 8 sectors per request where 4 would do is what Nsight
// Compute measured on an H200 for the same kernel (tests/profile/gpu-results/patterns-h200.csv:
// 1,024 sectors over 128 load requests).

TEST_CASE("profile: Reports lists each launch's counters, and clicking one jumps to it", "[profile]") {
  auto t = load_trace("profile.trace");
  REQUIRE(t->launches.size() == 20);
  std::vector<std::string> titles;
  for (const nlohmann::json& r : t->reports) titles.push_back(r.value("title", ""));
  REQUIRE(titles.size() == 20);  // one note per launch, and no other report
  for (const std::string& title : titles) CHECK(title.rfind("performance counters of ", 0) == 0);
  CHECK(titles[1].find("g_stride2") != std::string::npos);
  CHECK(titles[1].find("global loads 8.00 sectors per request (ideal 4.00)") != std::string::npos);
  CHECK(titles[0].find("no sector or wavefront beyond the ideal") != std::string::npos);

  const std::string trace = kTraces + "/profile.trace", json = kArt + "/profile_layout.json";
  const std::string common = " --step first --size 1280x800 --exit-after-frames 4";
  Run r0 = viz(trace + common + " --dump-layout " + json);
  REQUIRE(r0.status == 0);
  Layout lay;
  REQUIRE(lay.load(json));
  for (size_t i = 0; i < 3; ++i) {
    REQUIRE(lay.has("reports:" + std::to_string(i)));
    CHECK(lay.at("reports:" + std::to_string(i)).what == titles[i]);
  }
  // Clicking the stride-2 kernel's note moves the cursor into its launch.
  const Cell& c = lay.cells.at("reports:1");
  Run r1 = viz(trace + common + " --keys click:" + std::to_string(int((c.x0 + c.x1) / 2)) + ":" +
               std::to_string(int((c.y0 + c.y1) / 2)) + " --dump-layout " + json);
  REQUIRE(r1.status == 0);
  CHECK(r1.out.find("of launch 1,") != std::string::npos);
}

// ==== offscreen export (EGL, no display) ============================================================

TEST_CASE("offscreen: PNG of the whole layout has the requested size and the barrier colours", "[offscreen]") {
  const BarrierFacts f = barrier_facts();
  const std::string png = kArt + "/offscreen_barrier.png", json = kArt + "/offscreen_barrier.json";
  Run r = viz(kTraces + "/barrier.trace --export " + png + " --step " + std::to_string(f.arrive0) +
                  " --size 1100x720 --offscreen egl --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("EGL") != std::string::npos);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(img.w == 1100);
  CHECK(img.h == 720);
  check_barrier_frame(img, lay);
  // The timeline draws warp 0's barrier wait in the barrier colour.
  auto t = load_trace("barrier.trace");
  bool analysed = false;
  for (const tr::Interval& iv : tr::analyze(*t)) analysed |= iv.kind == tr::IntervalKind::BarrierWait && iv.warp == 0;
  REQUIRE(analysed);
  int spans = 0;
  for (const auto& [id, c] : lay.cells)
    if (id.rfind("timeline:0:", 0) == 0 && c.what == "barrier wait" && c.x1 - c.x0 >= 3) {
      ++spans;
      CHECK_COLOUR(img, lay, id, pal::kSpanBarrier);
    }
  CHECK(spans >= 1);
}

TEST_CASE("offscreen: a diverged warp is split between active and masked-off lanes", "[offscreen]") {
  const BarrierFacts f = barrier_facts();
  const std::string png = kArt + "/offscreen_divergence.png", json = kArt + "/offscreen_divergence.json";
  Run r = viz(kTraces + "/barrier.trace --export " + png + " --step " + std::to_string(f.diverged) +
                  " --window lanes --size 900x300 --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(img.w == 900);
  CHECK(img.h == 300);
  for (int l = 0; l < 32; ++l)
    CHECK_COLOUR(img, lay, "lanes:1:" + std::to_string(l),
                 (f.diverged_mask >> l & 1) ? pal::kLaneActive : pal::kLaneMaskedOff);
  // --window draws that window only.
  for (const auto& [id, c] : lay.cells) CHECK((id.rfind("lanes:", 0) == 0 || id == "window:lanes"));
}

TEST_CASE("offscreen: the flagship's lock bit is held at the report", "[offscreen]") {
  const FlagshipFacts f = flagship_facts();
  const std::string png = kArt + "/offscreen_flagship.png", json = kArt + "/offscreen_flagship.json";
  Run r = viz(kTraces + "/flagship.trace --export " + png + " --step report:0 --dump-layout " + json, kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(lay.cursor == f.report);
  check_flagship_frame(img, lay, f);
  // The source window highlights the spinning warp's line (the right end of the line is clear of text).
  REQUIRE(lay.has("source:line"));
  const Cell& c = lay.cells.at("source:line");
  CHECK(img.at(int(c.x1) - 6, int((c.y0 + c.y1) / 2)) == pal::kSourceLine);
}

TEST_CASE("offscreen: 32x32 lock bits match the bits replayed from the trace", "[offscreen]") {
  auto t = load_trace("locks.trace");
  const tr::Launch& L = t->launches[0];
  REQUIRE(t->regions.size() == 1);
  REQUIRE(t->regions[0]["dims"] == nlohmann::json({32, 32}));
  // Replay the lock bits up to the 200th update that sets a bit; count the acquires on the way.
  std::vector<int> bits(1024, 0);
  size_t cursor = SIZE_MAX;
  replay_lock_bits(*t, L, bits, [&](size_t i, int acquires) {
    if (acquires >= 200) cursor = i - L.first_event;
    return cursor == SIZE_MAX;
  });
  REQUIRE(cursor != SIZE_MAX);
  int held = 0;
  for (int b : bits) held += b;
  REQUIRE(held > 0);     // some locks are held at that point ...
  REQUIRE(held < 1024);  // ... and some are free
  const std::string png = kArt + "/offscreen_locks.png", json = kArt + "/offscreen_locks.json";
  Run r = viz(kTraces + "/locks.trace --export " + png + " --step " + std::to_string(cursor) +
                  " --window locks --size 800x820 --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  int mismatches = 0;
  for (int i = 0; i < 1024; ++i) {
    const pal::Rgb want = bits[size_t(i)] ? pal::kLockHeld : pal::kLockFree;
    const pal::Rgb got = centre(img, lay, "locks:0:" + std::to_string(i));
    if (got != want) {
      ++mismatches;
      UNSCOPED_INFO("bit " << i << ": got " << rgb_str(got) << ", expected " << rgb_str(want));
    }
  }
  CHECK(mismatches == 0);
  // Drawn as 32 rows of 32: bit 32 is below bit 0.
  const Cell& b0 = lay.cells.at("locks:0:0");
  const Cell& b32 = lay.cells.at("locks:0:32");
  CHECK(b32.y0 > b0.y1 - 0.5f);
  CHECK(std::abs(b32.x0 - b0.x0) < 0.5f);
}

TEST_CASE("offscreen: --step most:REGION exports where the most lock bits are held", "[offscreen]") {
  // The expected event, replayed here from the trace's RegionUpdate events.
  auto t = load_trace("locks.trace");
  const tr::Launch& L = t->launches[0];
  std::vector<int> bits(1024, 0);
  int best = 0;
  size_t best_cursor = SIZE_MAX;
  replay_lock_bits(*t, L, bits, [&](size_t i, int) {
    int held = 0;
    for (int b : bits) held += b;
    if (held > best) {
      best = held;
      best_cursor = i - L.first_event;
    }
    return true;
  });
  REQUIRE(best_cursor != SIZE_MAX);
  REQUIRE(best > 1);
  const std::string name = t->regions[0]["name"].get<std::string>();
  const std::string png = kArt + "/offscreen_most.png", json = kArt + "/offscreen_most.json";
  // The whole name, and the start of it.
  for (const std::string& spec : {"most:" + name, "most:" + name.substr(0, 2), std::string("most")}) {
    Run r = viz(kTraces + "/locks.trace --export " + png + " --step '" + spec + "' --window locks --size 800x820 " +
                    "--dump-layout " + json,
                kNoDisplay);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("event " + std::to_string(best_cursor) + " of launch 0") != std::string::npos);
    Layout lay;
    Image img;
    REQUIRE(lay.load(json));
    REQUIRE(img.load(png));
    CHECK(lay.cursor == best_cursor);
    int red = 0;
    for (int i = 0; i < 1024; ++i) red += centre(img, lay, "locks:0:" + std::to_string(i)) == pal::kLockHeld;
    CHECK(red == best);
  }
  // A region the trace does not have: an error that lists the ones it has.
  Run bad = viz(kTraces + "/locks.trace --export " + png + " --step most:nosuchregion", kNoDisplay);
  CHECK(bad.status != 0);
  CHECK(bad.err.find("nosuchregion") != std::string::npos);
  CHECK(bad.err.find("\"" + name + "\"") != std::string::npos);
}

TEST_CASE("offscreen: --step stale:data shows the reader pink and data's write not yet visible to all",
          "[offscreen]") {
  // The expected cursor, found here from the trace's own events: the first MemoryModel StaleRead
  // whose address is the "data" region's, in the first launch that has one.
  auto t = load_trace("message.trace");
  uint64_t data_addr = 0;
  int data_id = -1;
  for (const auto& r : t->regions)
    if (r["name"] == "data") {
      data_addr = r["address"].get<uint64_t>();
      data_id = r["id"].get<int>();
    }
  REQUIRE(data_id >= 0);
  int launch = -1;
  uint64_t cursor = 0;
  for (size_t l = 0; l < t->launches.size() && launch < 0; ++l) {
    const tr::Launch& L = t->launches[l];
    for (size_t i = L.first_event; i < L.end_event; ++i) {
      const tr::Event& e = t->event(i);
      if (e.kind == uint8_t(tr::EventKind::MemoryModel) && e.a == data_addr &&
          (e.aux & tr::kMemoryModelKindMask) == uint16_t(tr::MemoryModelKind::StaleRead)) {
        launch = int(l);
        cursor = i - L.first_event;
        break;
      }
    }
  }
  REQUIRE(launch >= 0);  // 32 seeds of message passing without a fence: some read the old data
  const std::string png = kArt + "/offscreen_message.png", json = kArt + "/offscreen_message.json";
  Run r = viz(kTraces + "/message.trace --export " + png + " --launch " + std::to_string(launch) +
                  " --step stale:data --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(lay.cursor == cursor);
  // The reader (block 1's only lane) read an old value; the writer's lane is not pink.
  CHECK_COLOUR(img, lay, "lanes:1:0", pal::kLaneStaleRead);
  CHECK(centre(img, lay, "lanes:0:0") != pal::kLaneStaleRead);
  // data: value 42 (set), its write buffered (blue inner outline), read old at the cursor (pink outline).
  int data_index = -1;
  for (size_t i = 0; i < t->regions.size(); ++i)
    if (t->regions[i]["name"] == "data") data_index = int(i);
  const std::string cell = std::to_string(data_index) + ":0";
  CHECK_COLOUR(img, lay, "locks:" + cell, pal::kFlagSet);
  REQUIRE(lay.has("buffered:" + cell));
  REQUIRE(lay.has("read-old:" + cell));
  // The outlines' pixels: along the cell's middle row, the pink edge, then the blue inset.
  const Cell& c = lay.cells.at("locks:" + cell);
  const int y = int((c.y0 + c.y1) * 0.5f);
  bool pink = false, blue = false;
  for (int x = int(c.x0); x < int(c.x0) + 8 && x < img.w; ++x) {
    pink = pink || img.at(x, y) == pal::kCellReadOld;
    blue = blue || img.at(x, y) == pal::kCellBuffered;
  }
  CHECK(pink);
  CHECK(blue);
  // flag and seen are not outlined pink (nothing read an old value of them at this event).
  for (size_t i = 0; i < t->regions.size(); ++i)
    if (int(i) != data_index) CHECK(!lay.has("read-old:" + std::to_string(i) + ":0"));
}

TEST_CASE("offscreen: a tall lock-bits grid and the array below it both fit the whole layout", "[offscreen]") {
  // A hand-written trace: 128 lock bits shaped 32 x 4 (32 rows) with bits 0, 32, 64 and 96 held,
  // and a 4-element array 3, 0, 5, 7 named after it. At the default size, with every window
  // open, both must be drawn inside the Lock bits window: each cell's centre pixel has the
  // colour of its value.
  const std::string trace = kArt + "/tall_regions.trace";
  {
    tr::Writer w;
    std::string err;
    REQUIRE(w.open(trace, {{"program", "tall"}, {"backend", "sim"}}, false, {}, &err));
    w.region(tr::region_json(0, "tall locks", "lock-bits", 0x1000, 16, 1, {32, 4}));
    w.region(tr::region_json(1, "counts", "array", 0x2000, 16, 32, {4}));
    w.kernel({{"name", "k"}, {"launch", 0}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"warps_per_block", 1}});
    uint64_t t = 0;
    w.event(tr::make_event(t, 0, tr::EventKind::KernelBegin, 0xff, 0, 0, 1));
    for (uint64_t bit : {0, 32, 64, 96}) {
      w.event(tr::make_event(++t, 0, tr::EventKind::WarpStep, 0xff, 3, 0xffffffffull, 1));
      w.event(tr::make_event(t, 0, tr::EventKind::RegionUpdate, uint8_t(bit / 32), 0, bit, 1));
    }
    const uint64_t counts[4] = {3, 0, 5, 7};
    for (uint64_t i = 0; i < 4; ++i)
      if (counts[i]) w.event(tr::make_event(++t, 0, tr::EventKind::RegionUpdate, 0, 1, i, counts[i]));
    w.event(tr::make_event(++t, 0, tr::EventKind::KernelEnd, 0xff, 0, 0, 0));
    w.close();
  }
  const std::string png = kArt + "/tall_regions.png", json = kArt + "/tall_regions.json";
  Run r = viz(trace + " --export " + png + " --step last --dump-layout " + json, kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  for (int i = 0; i < 128; ++i)
    CHECK_COLOUR(img, lay, "locks:0:" + std::to_string(i), i % 32 == 0 ? pal::kLockHeld : pal::kLockFree);
  for (int i = 0; i < 4; ++i) {
    const Cell& c = lay.cells.at("locks:1:" + std::to_string(i));
    // the value is written in the middle of an array cell: look near its top-left corner
    const pal::Rgb got = img.at(int(c.x0) + 2, int(c.y0) + 2);
    CHECK(got == (i == 1 ? pal::kFlagClear : pal::kFlagSet));
  }
  // The array sits below the last row of the grid, not on top of it.
  CHECK(lay.cells.at("locks:1:0").y0 > lay.cells.at("locks:0:127").y1);
  // Its elements show their values: dark text inside the yellow cell of counts[3] = 7.
  const Cell& c3 = lay.cells.at("locks:1:3");
  int dark = 0;
  for (int y = int(c3.y0) + 1; y < int(c3.y1) - 1; ++y)
    for (int x = int(c3.x0) + 1; x < int(c3.x1) - 1; ++x) {
      const pal::Rgb p = img.at(x, y);
      dark += p.r < 60 && p.g < 60 && p.b < 60;
    }
  CHECK(dark > 3);
}

TEST_CASE("offscreen: the wavefront heat map shows completed and pending cells", "[offscreen]") {
  auto t = load_trace("wavefront.trace");
  const tr::Launch& L = t->launches[0];
  REQUIRE(t->regions.size() == 1);
  const int n = 16;
  REQUIRE(t->regions[0]["dims"] == nlohmann::json({n, n}));
  uint64_t first_time = t->event(L.first_event).time, last_time = first_time;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    first_time = std::min(first_time, t->event(i).time);
    last_time = std::max(last_time, t->event(i).time);
  }
  // Each cell's first update (cursor, time).
  std::vector<uint64_t> done_cursor(n * n, UINT64_MAX), done_time(n * n, 0);
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind != uint8_t(tr::EventKind::RegionUpdate) || e.a >= uint64_t(n * n)) continue;
    if (done_cursor[e.a] == UINT64_MAX) {
      done_cursor[e.a] = i - L.first_event;
      done_time[e.a] = e.time;
    }
  }
  for (uint64_t c : done_cursor) REQUIRE(c != UINT64_MAX);
  const uint64_t cursor = done_cursor[7 * n + 8];  // the middle anti-diagonal
  const std::string png = kArt + "/offscreen_wavefront.png", json = kArt + "/offscreen_wavefront.json";
  Run r = viz(kTraces + "/wavefront.trace --export " + png + " --step " + std::to_string(cursor) +
                  " --window wavefront --size 700x760 --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  int done = 0, pending = 0, bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::string id = "wavefront:0:" + std::to_string(i) + ":" + std::to_string(j);
      const pal::Rgb got = centre(img, lay, id);
      const size_t k = size_t(i * n + j);
      pal::Rgb want;
      if (done_cursor[k] <= cursor) {
        ++done;
        want = pal::heat(double(done_time[k] - first_time) / double(last_time - first_time));
      } else {
        ++pending;
        want = pal::kHeatPending;
      }
      if (!near(got, want, 2)) {
        ++bad;
        UNSCOPED_INFO(id << ": got " << rgb_str(got) << ", expected " << rgb_str(want));
      }
    }
  CHECK(bad == 0);
  CHECK(done > 0);
  CHECK(pending > 0);
  // Early cells are darker than late ones on the ramp: (0,0) vs the last completed.
  CHECK(centre(img, lay, "wavefront:0:0:0") != centre(img, lay, "wavefront:0:7:8"));
}

// ==== the GLFW fallback (a hidden window under a display) =========================================

TEST_CASE("offscreen through a hidden GLFW window when asked (or when EGL is missing)", "[glfw]") {
  const BarrierFacts f = barrier_facts();
  const std::string png = kArt + "/glfw_barrier.png", json = kArt + "/glfw_barrier.json";
  Run r = viz(kTraces + "/barrier.trace --export " + png + " --step " + std::to_string(f.arrive0) +
              " --offscreen glfw --size 1000x700 --dump-layout " + json);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("hidden GLFW window") != std::string::npos);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  CHECK(img.w == 1000);
  check_barrier_frame(img, lay);
  // Without a display the GLFW path fails with a message, not a crash.
  Run r2 = viz(kTraces + "/barrier.trace --export " + kArt + "/glfw_nodisplay.png --offscreen glfw", kNoDisplay);
  CHECK(r2.status == 1);
  CHECK(r2.err.find("display") != std::string::npos);
}

// ==== animations ====================================================================================

TEST_CASE("MP4 export through ffmpeg (and GIF when built without giflib)", "[video]") {
  const std::string gif = kArt + "/wavefront.gif", mp4 = kArt + "/wavefront.mp4";
  std::remove(gif.c_str());
  std::remove(mp4.c_str());
  Run r = viz(kTraces + "/wavefront.trace --export " + gif +
                  " --from first --to last --fps 12 --max-frames 24 --window wavefront --size 320x340",
              kNoDisplay);
  REQUIRE(r.status == 0);
  REQUIRE(file_size(gif) > 1000);
  CHECK(slurp(gif).substr(0, 4) == "GIF8");
  Run r2 =
      viz(kTraces + "/wavefront.trace --export " + mp4 + " --from 0 --to last --fps 10 --max-frames 20 --size 641x481",
          kNoDisplay);
  REQUIRE(r2.status == 0);
  REQUIRE(file_size(mp4) > 1000);
  CHECK(slurp(mp4).substr(4, 4) == "ftyp");
  // No ffmpeg: a clear message, no file.
  const std::string no_ffmpeg = kNoDisplay + "SYNCLAB_FFMPEG=/nonexistent/ffmpeg ";
  Run r3 = viz(kTraces + "/wavefront.trace --export " + kArt + "/noffmpeg.mp4 --from 0 --to 10", no_ffmpeg);
  CHECK(r3.status == 1);
  CHECK(r3.err.find("needs ffmpeg") != std::string::npos);
  CHECK(!exists(kArt + "/noffmpeg.mp4"));
#ifdef SYNCLAB_VIZ_GIFLIB
  // A GIF does not need ffmpeg when giflib encodes it.
  std::remove((kArt + "/noffmpeg.gif").c_str());
  Run r3b = viz(kTraces + "/wavefront.trace --export " + kArt + "/noffmpeg.gif --from 0 --to 10", no_ffmpeg);
  CHECK(r3b.status == 0);
  CHECK(file_size(kArt + "/noffmpeg.gif") > 0);
#endif
  Run r4 = viz(kTraces + "/wavefront.trace --export " + kArt + "/x.gif --from 5 --to 2", kNoDisplay);
  CHECK(r4.status == 1);
  Run r5 = viz(kTraces + "/wavefront.trace --export " + kArt + "/x.avi --from 0 --to 2", kNoDisplay);
  CHECK(r5.status == 1);
  CHECK(r5.err.find(".png") != std::string::npos);
}

#ifdef SYNCLAB_VIZ_GIFLIB
namespace {

// A GIF read back with giflib: the screen size, each frame's delay, and each frame as the
// picture on screen after it (frames draw over the previous one: synclab-viz stores only the
// rectangle that changed).
struct Gif {
  int w = 0, h = 0;
  std::vector<int> delays;                // hundredths of a second
  std::vector<std::vector<pal::Rgb>> screens;
  std::vector<std::array<int, 4>> rects;  // each frame's image: left, top, width, height
  bool load(const std::string& path, std::string* error) {
    int e = 0;
    GifFileType* g = DGifOpenFileName(path.c_str(), &e);
    if (!g) {
      *error = std::string("DGifOpenFileName: ") + GifErrorString(e);
      return false;
    }
    if (DGifSlurp(g) == GIF_ERROR) {
      *error = std::string("DGifSlurp: ") + GifErrorString(g->Error);
      DGifCloseFile(g, &e);
      return false;
    }
    w = g->SWidth, h = g->SHeight;
    std::vector<pal::Rgb> screen(size_t(w) * size_t(h), pal::Rgb{0, 0, 0});
    bool ok = true;
    for (int i = 0; i < g->ImageCount && ok; ++i) {
      const SavedImage& im = g->SavedImages[i];
      const GifImageDesc& d = im.ImageDesc;
      const ColorMapObject* map = d.ColorMap ? d.ColorMap : g->SColorMap;
      GraphicsControlBlock gcb{};
      delays.push_back(DGifSavedExtensionToGCB(g, i, &gcb) == GIF_OK ? gcb.DelayTime : -1);
      rects.push_back({d.Left, d.Top, d.Width, d.Height});
      if (!map || d.Left < 0 || d.Top < 0 || d.Left + d.Width > w || d.Top + d.Height > h) {
        *error = "frame " + std::to_string(i) + " has no colour map or lies outside the screen";
        ok = false;
        break;
      }
      for (int y = 0; y < d.Height; ++y)
        for (int x = 0; x < d.Width; ++x) {
          const int k = im.RasterBits[size_t(y) * size_t(d.Width) + size_t(x)];
          if (k >= map->ColorCount) {
            *error = "frame " + std::to_string(i) + ": a pixel's colour index is past its colour map";
            ok = false;
            break;
          }
          const GifColorType c = map->Colors[k];
          screen[size_t(d.Top + y) * size_t(w) + size_t(d.Left + x)] = {c.Red, c.Green, c.Blue};
        }
      screens.push_back(screen);
    }
    DGifCloseFile(g, &e);
    return ok;
  }
  pal::Rgb at(size_t frame, int x, int y) const { return screens[frame][size_t(y) * size_t(w) + size_t(x)]; }
};

int max_channel_diff(pal::Rgb a, pal::Rgb b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

}  // namespace

TEST_CASE("gif: --frames N gives N frames; the wavefront advances; the last frame is the PNG at the end", "[gif]") {
  auto t = load_trace("wavefront.trace");
  const tr::Launch& L = t->launches[0];
  const uint64_t events = L.end_event - L.first_event;
  REQUIRE(events > 50);
  const std::string gif = kArt + "/gif_wavefront.gif", png = kArt + "/gif_wavefront_last.png",
                    json = kArt + "/gif_wavefront_last.json";
  std::remove(gif.c_str());
  const std::string view = " --window wavefront --size 320x340";
  Run r = viz(kTraces + "/wavefront.trace --export " + gif + view + " --frames 12 --fps 10", kNoDisplay);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("12 frames at 10 fps, events 0.." + std::to_string(events - 1)) != std::string::npos);
  Run rp = viz(kTraces + "/wavefront.trace --export " + png + view + " --step last --dump-layout " + json, kNoDisplay);
  REQUIRE(rp.status == 0);

  Gif g;
  std::string err;
  const bool loaded = g.load(gif, &err);
  INFO(err);
  REQUIRE(loaded);
  CHECK(g.w == 320);
  CHECK(g.h == 340);
  REQUIRE(g.screens.size() == 12);
  CHECK(g.rects[0] == std::array<int, 4>{0, 0, 320, 340});  // the first frame is whole
  for (size_t i = 0; i + 1 < g.delays.size(); ++i) CHECK(g.delays[i] == 10);
  CHECK(g.delays.back() == 110);  // the last frame stays a second longer

  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  REQUIRE(img.w == g.w);
  REQUIRE(img.h == g.h);
  // The front moves: the first frame (event 0) has no cell done, the last one every cell.
  const int n = 16;
  int pending_first = 0, pending_last = 0, cells_bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::string id = "wavefront:0:" + std::to_string(i) + ":" + std::to_string(j);
      const Cell& c = lay.cells.at(id);
      const int x = int((c.x0 + c.x1) * 0.5f), y = int((c.y0 + c.y1) * 0.5f);
      pending_first += g.at(0, x, y) == pal::kHeatPending;
      pending_last += g.at(g.screens.size() - 1, x, y) == pal::kHeatPending;
      // The cell's colour in the GIF's last frame is the PNG's, within what fitting the frame to
      // 256 colours can move it.
      if (max_channel_diff(g.at(g.screens.size() - 1, x, y), img.at(x, y)) > 8) {
        ++cells_bad;
        UNSCOPED_INFO(id << ": GIF " << rgb_str(g.at(g.screens.size() - 1, x, y)) << ", PNG " << rgb_str(img.at(x, y)));
      }
    }
  CHECK(pending_first == n * n);
  CHECK(pending_last == 0);
  CHECK(cells_bad == 0);
  // The first and last frames differ; the last one is the PNG, pixel by pixel: the same colour
  // for nearly all pixels (the 64 most common colours of a frame are kept exactly), and none far.
  size_t differ_first = 0, exact = 0, far = 0;
  const size_t last = g.screens.size() - 1;
  for (int y = 0; y < g.h; ++y)
    for (int x = 0; x < g.w; ++x) {
      differ_first += g.at(0, x, y) != g.at(last, x, y);
      exact += g.at(last, x, y) == img.at(x, y);
      far += max_channel_diff(g.at(last, x, y), img.at(x, y)) > 24;
    }
  const size_t pixels = size_t(g.w) * size_t(g.h);
  INFO("last frame vs PNG: " << exact << " of " << pixels << " pixels exact, " << far << " off by more than 24");
  CHECK(differ_first > size_t(n * n));
  CHECK(double(exact) >= 0.95 * double(pixels));
  CHECK(far == 0);
}

TEST_CASE("gif: --every K makes a frame every K events and one at the end; progress by quarters", "[gif]") {
  auto t = load_trace("wavefront.trace");
  const tr::Launch& L = t->launches[0];
  const uint64_t events = L.end_event - L.first_event;
  const uint64_t k = std::max<uint64_t>(1, events / 25);  // about 25 frames: long enough for progress lines
  const uint64_t want = (events - 1) / k + 1 + ((events - 1) % k != 0);
  const std::string gif = kArt + "/gif_every.gif";
  std::remove(gif.c_str());
  Run r = viz(kTraces + "/wavefront.trace --export " + gif + " --window wavefront --size 200x220 --every " +
                  std::to_string(k) + " --fps 25",
              kNoDisplay);
  REQUIRE(r.status == 0);
  Gif g;
  std::string err;
  const bool loaded = g.load(gif, &err);
  INFO(err);
  REQUIRE(loaded);
  CHECK(g.screens.size() == want);
  CHECK(g.delays.front() == 4);
  // One progress line per quarter (25%, 50%, 75%), then "wrote".
  for (const char* q : {"  25%: frame ", "  50%: frame ", "  75%: frame "}) CHECK(r.out.find(q) != std::string::npos);
  CHECK(r.out.find("wrote " + gif) != std::string::npos);
}

TEST_CASE("gif: bad arguments give a message and a non-zero exit, and write no file", "[gif]") {
  auto t = load_trace("wavefront.trace");
  const uint64_t events = t->launches[0].end_event - t->launches[0].first_event;
  const std::string gif = kArt + "/gif_bad.gif";
  struct Bad {
    std::string trace, args, says;
  };
  const std::vector<Bad> bad = {
      {"wavefront", "--frames 0", "--frames"},
      {"wavefront", "--frames x", "--frames"},
      {"wavefront", "--frames " + std::to_string(events + 1), "--frames " + std::to_string(events) + " or fewer"},
      {"wavefront", "--frames 3 --from 10 --to 11", "--frames 2 or fewer"},
      {"wavefront", "--every 0", "--every"},
      {"wavefront", "--frames 4 --every 2", "give one of them"},
      {"wavefront", "--every 1 --max-frames 10", "more than --max-frames 10"},
      {"wavefront", "--fps 0", "--fps must be in (0, 240]"},
      {"wavefront", "--fps -5", "--fps must be in (0, 240]"},
      {"wavefront", "--from 20 --to 10", "--to must not be before --from"},
      {"wavefront", "--to 999999999", "past the end"},
      {"barrier", "--window wavefront", "has none"},
      {"wavefront_diagonals", "--all-launches --launch 2", "takes no --launch"},
      {"wavefront_diagonals", "--all-launches --from 3", "takes no --launch, --from or --to"},
  };
  for (const Bad& b : bad) {
    std::remove(gif.c_str());
    Run r = viz(kTraces + "/" + b.trace + ".trace --export " + gif + " " + b.args, kNoDisplay);
    INFO(b.trace << ".trace " << b.args);
    CHECK(r.status != 0);
    CHECK(r.err.find(b.says) != std::string::npos);
    CHECK(!exists(gif));
  }
  // --frames on a still, and a GIF in a folder that does not exist.
  const std::string png = kArt + "/gif_bad.png";
  std::remove(png.c_str());
  Run rs = viz(kTraces + "/wavefront.trace --export " + png + " --frames 3", kNoDisplay);
  CHECK(rs.status == 1);
  CHECK(rs.err.find("is a still") != std::string::npos);
  CHECK(!exists(png));
  Run ru = viz(kTraces + "/wavefront.trace --export " + kArt + "/no-such-folder/x.gif --frames 3", kNoDisplay);
  CHECK(ru.status == 1);
  CHECK(ru.err.find("cannot write " + kArt + "/no-such-folder/x.gif: No such file or directory") != std::string::npos);
  CHECK(!exists(kArt + "/no-such-folder"));
  // --all-launches animates: a still is refused.
  Run ra = viz(kTraces + "/wavefront_diagonals.trace --export " + png + " --all-launches", kNoDisplay);
  CHECK(ra.status == 1);
  CHECK(ra.err.find("--all-launches plays every launch as an animation") != std::string::npos);
  CHECK(!exists(png));
}

// A wavefront of launches (vizapp_wavefront 8 diagonals: anti-diagonal d is launch d, 15 launches).
// The wavefront window draws the cells earlier launches completed in their own colour, and
// --all-launches animates every launch in order, so the grid fills up frame by frame.
TEST_CASE("gif: --all-launches plays a wavefront of launches; earlier launches' cells stay done", "[gif]") {
  auto t = load_trace("wavefront_diagonals.trace");
  const int n = 8;
  REQUIRE(t->launches.size() == size_t(2 * n - 1));
  const std::string view = " --window wavefront --size 320x340";
  // A still of launch 5 at its end: the cells of diagonals 0..4 are "earlier" (grey), diagonal 5's
  // are done now, the rest pending.
  const std::string png = kArt + "/diagonals_5.png", json = kArt + "/diagonals_5.json";
  Run rp = viz(kTraces + "/wavefront_diagonals.trace --export " + png + view + " --launch 5 --step last --dump-layout " +
                   json,
               kNoDisplay);
  REQUIRE(rp.status == 0);
  Layout lay;
  REQUIRE(lay.load(json));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Cell& c = lay.cells.at("wavefront:0:" + std::to_string(i) + ":" + std::to_string(j));
      const int d = i + j;
      const bool ok = d < 5    ? c.what == "earlier" && c.rgb == pal::kHeatEarlier
                      : d == 5 ? (c.what == "done" || c.what == "front")
                               : c.what == "pending" && c.rgb == pal::kHeatPending;
      if (!ok) {
        ++wrong;
        UNSCOPED_INFO("cell " << i << "," << j << " (diagonal " << d << "): " << c.what << " " << rgb_str(c.rgb));
      }
    }
  CHECK(wrong == 0);

  // The animation over every launch: the first frame has every cell pending, the last none, and
  // the number of pending cells never grows from one frame to the next.
  const std::string gif = kArt + "/diagonals.gif";
  std::remove(gif.c_str());
  Run r = viz(kTraces + "/wavefront_diagonals.trace --export " + gif + view + " --all-launches --frames 20", kNoDisplay);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("20 frames") != std::string::npos);
  CHECK(r.out.find("of launches 0..14 in order") != std::string::npos);
  Gif g;
  std::string err;
  const bool loaded = g.load(gif, &err);
  INFO(err);
  REQUIRE(loaded);
  REQUIRE(g.screens.size() == 20);
  std::vector<int> pending(g.screens.size(), 0);
  for (size_t f = 0; f < g.screens.size(); ++f)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const Cell& c = lay.cells.at("wavefront:0:" + std::to_string(i) + ":" + std::to_string(j));
        pending[f] += g.at(f, int((c.x0 + c.x1) * 0.5f), int((c.y0 + c.y1) * 0.5f)) == pal::kHeatPending;
      }
  CHECK(pending.front() == n * n);
  CHECK(pending.back() == 0);
  for (size_t f = 1; f < pending.size(); ++f) {
    INFO("frame " << f);
    CHECK(pending[f] <= pending[f - 1]);
  }
}
#endif

// ==== bad input =====================================================================================

TEST_CASE("malformed, truncated and damaged traces give a message and an exit status, never a crash", "[errors]") {
  const std::string good = slurp(kTraces + "/barrier.trace");
  REQUIRE(good.size() > 1000);
  auto write = [](const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  };
  const std::string png = kArt + "/bad.png";

  Run missing = viz(kArt + "/no-such.trace --export " + png, kNoDisplay);
  CHECK(missing.status == 1);
  CHECK(missing.err.find("no-such.trace") != std::string::npos);

  write(kArt + "/empty.trace", "");
  Run empty = viz(kArt + "/empty.trace --export " + png, kNoDisplay);
  CHECK(empty.status == 1);
  CHECK(empty.err.find("synclab-viz:") != std::string::npos);

  write(kArt + "/text.trace", "this is not a trace at all\n");
  Run text = viz(kArt + "/text.trace --export " + png, kNoDisplay);
  CHECK(text.status == 1);
  CHECK(!text.err.empty());

  // Cut short anywhere: refused with a message, or shown with a "cut short" warning.
  for (size_t cut : {size_t(4), size_t(16), size_t(24), size_t(40), size_t(200), good.size() / 3, good.size() / 2,
                     good.size() - 40, good.size() - 1}) {
    const std::string path = kArt + "/cut_" + std::to_string(cut) + ".trace";
    write(path, good.substr(0, cut));
    std::remove(png.c_str());
    Run r = viz(path + " --export " + png, kNoDisplay);
    INFO("cut at " << cut);
    CHECK(r.status < 128);
    CHECK((r.status == 0 || r.status == 1));
    CHECK(!r.err.empty());
    if (r.status == 0) {
      CHECK(r.err.find("warning") != std::string::npos);
      CHECK(exists(png));
    }
  }

  // Damaged event records (random bytes over the events): still no crash.
  uint64_t seed = 12345;
  auto rnd = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(seed >> 33);
  };
  for (int variant = 0; variant < 6; ++variant) {
    std::string bad = good;
    for (int k = 0; k < 64; ++k) {
      const size_t at = 512 + rnd() % (bad.size() - 512);
      bad[at] = char(rnd() & 0xff);
    }
    const std::string path = kArt + "/damaged_" + std::to_string(variant) + ".trace";
    write(path, bad);
    Run r = viz(path + " --export " + png + " --step last", kNoDisplay);
    INFO("variant " << variant);
    CHECK(r.status < 128);
  }

  // Another format version, another magic, random bytes with a valid preamble: refused with a
  // message naming the file.
  {
    std::string other = good;
    const uint32_t version = 99;
    std::memcpy(&other[8], &version, 4);
    write(kArt + "/version.trace", other);
    Run r = viz(kArt + "/version.trace --export " + png, kNoDisplay);
    CHECK(r.status == 1);
    CHECK(r.err.find("version.trace") != std::string::npos);
    CHECK(r.err.find("version") != std::string::npos);
    std::string magic = good;
    magic[0] = 'X';
    write(kArt + "/magic.trace", magic);
    Run m = viz(kArt + "/magic.trace --export " + png, kNoDisplay);
    CHECK(m.status == 1);
    CHECK(m.err.find("magic.trace") != std::string::npos);
    std::string noise = good.substr(0, 16);
    for (int k = 0; k < 4096; ++k) noise += char(rnd() & 0xff);
    write(kArt + "/noise.trace", noise);
    Run n = viz(kArt + "/noise.trace --export " + png, kNoDisplay);
    CHECK(n.status == 1);
    CHECK(n.err.find("noise.trace") != std::string::npos);
  }

  // An event whose time jumps far ahead, so the next one goes back in time (the timeline's
  // queries need sorted times): a warning, the picture, no crash.
  {
    std::string bad = good;
    size_t at = 16;  // after the preamble: chunk headers (kind u32, reserved u32, bytes u64)
    bool done = false;
    while (at + 16 <= bad.size() && !done) {
      uint32_t kind = 0;
      uint64_t bytes = 0;
      std::memcpy(&kind, &bad[at], 4);
      std::memcpy(&bytes, &bad[at + 8], 8);
      if (kind == 5 && bytes >= 64 * 32) {
        const uint64_t far = 1ull << 40;
        std::memcpy(&bad[at + 16 + 40 * 32], &far, 8);  // event 40's time
        done = true;
      }
      at += 16 + ((bytes + 7) / 8) * 8;
    }
    REQUIRE(done);
    write(kArt + "/backwards.trace", bad);
    for (const char* w : {"timeline", "lanes"}) {
      Run r = viz(kArt + "/backwards.trace --export " + png + " --step last --window " + w, kNoDisplay);
      CHECK(r.status == 0);
      CHECK(r.err.find("go backwards") != std::string::npos);
    }
  }

  // Bad options.
  const std::string trace = kTraces + "/barrier.trace";
  Run past = viz(trace + " --export " + png + " --step 999999999", kNoDisplay);
  CHECK(past.status == 1);
  CHECK(past.err.find("past the end") != std::string::npos);
  Run word = viz(trace + " --export " + png + " --step soon", kNoDisplay);
  CHECK(word.status == 1);
  Run win = viz(trace + " --export " + png + " --window nope", kNoDisplay);
  CHECK(win.status == 2);
  CHECK(win.err.find("lanes") != std::string::npos);
  Run size = viz(trace + " --export " + png + " --size 10x10", kNoDisplay);
  CHECK(size.status == 2);
  Run launch = viz(trace + " --export " + png + " --launch 7", kNoDisplay);
  CHECK(launch.status == 1);
  Run probe = viz(trace + " --export " + png + " --probe lanes:99:0", kNoDisplay);
  CHECK(probe.status == 1);
  // No display and no --export: a message that says how to export instead.
  Run nodisp = viz(trace, kNoDisplay);
  CHECK(nodisp.status == 1);
  CHECK(nodisp.err.find("--export") != std::string::npos);
}

// ==== the source file is gone =======================================================================

TEST_CASE("Source says so when the trace's source file is not on disk", "[source]") {
  const std::string dir = kArt + "/moved_source";
  REQUIRE(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()) == 0);
  const std::string src = dir + "/prog.cu", exe = dir + "/prog", trace = dir + "/prog.trace";
  REQUIRE(std::system(("cp " + std::string(VIZ_BARRIER_SRC) + " " + src).c_str()) == 0);
  REQUIRE(std::system(
              (std::string(VIZ_NVCC) + " -std=c++17 " + src + " -o " + exe + " >" + dir + "/build.log 2>&1").c_str()) ==
          0);
  REQUIRE(std::system(("SYNCLAB_TRACE=" + trace + " " + exe + " >" + dir + "/run.log 2>&1").c_str()) == 0);
  // With the file present, the line is highlighted.
  Run here =
      viz(trace + " --export " + dir + "/here.png --window source --dump-layout " + dir + "/here.json", kNoDisplay);
  REQUIRE(here.status == 0);
  Layout lay;
  REQUIRE(lay.load(dir + "/here.json"));
  CHECK(lay.has("source:line"));
  CHECK(!lay.has("source:missing"));
  // Moved away: a message instead of a crash or an empty window.
  REQUIRE(std::rename(src.c_str(), (src + ".moved").c_str()) == 0);
  Run gone =
      viz(trace + " --export " + dir + "/gone.png --window source --dump-layout " + dir + "/gone.json", kNoDisplay);
  REQUIRE(gone.status == 0);
  Layout lay2;
  REQUIRE(lay2.load(dir + "/gone.json"));
  CHECK(lay2.has("source:missing"));
  CHECK(!lay2.has("source:line"));
}

// ==== a race report's accesses (the Reports window's interleaving) ==================================

namespace {

// The accesses to region "x" of lost_update.trace, read from the events: launch cursors, warps,
// whether each is a store, and the value. The program adds 1 to x[0] == 0 in two blocks.
struct LostUpdateFacts {
  std::vector<uint64_t> cursors;
  std::vector<uint32_t> warps;
  std::vector<bool> stores;
  std::vector<uint64_t> values;
};

LostUpdateFacts lost_update_facts() {
  auto t = load_trace("lost_update.trace");
  uint64_t x = 0;
  for (const nlohmann::json& r : t->regions)
    if (r.value("name", "") == "x") x = r.value("address", uint64_t(0));
  REQUIRE(x != 0);
  const tr::Launch& L = t->launches[0];
  LostUpdateFacts f;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind != uint8_t(tr::EventKind::MemAccess) || e.a != x) continue;
    f.cursors.push_back(i - L.first_event);
    f.warps.push_back(e.warp);
    f.stores.push_back((e.aux & tr::kAuxWrite) != 0);
    f.values.push_back(e.b);
  }
  // The schedule the scenario is about: both loads (of 0) before both stores (of 1).
  REQUIRE(f.cursors.size() == 4);
  REQUIRE(f.stores == std::vector<bool>{false, false, true, true});
  REQUIRE(f.values == std::vector<uint64_t>{0, 0, 1, 1});
  return f;
}

// The Reports window's access rows (id "reports:access:K") that are loads or stores, top to bottom.
std::vector<const Cell*> access_rows(const Layout& lay) {
  std::vector<const Cell*> rows;
  for (int k = 0; k < 64; ++k) {
    auto it = lay.cells.find("reports:access:" + std::to_string(k));
    if (it == lay.cells.end()) continue;
    if (it->second.what.rfind("load", 0) == 0 || it->second.what.rfind("store", 0) == 0) rows.push_back(&it->second);
  }
  return rows;
}

}  // namespace

TEST_CASE("Reports lists a race's accesses in order, and the timeline marks them", "[interleaving]") {
  const LostUpdateFacts f = lost_update_facts();
  const std::string png = kArt + "/lost_update.png", json = kArt + "/lost_update.json";
  Run r = viz(kTraces + "/lost_update.trace --export " + png + " --report 0 --dump-layout " + json, kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  // load 0, load 0, store 1, store 1: one row each, top to bottom.
  const std::vector<const Cell*> rows = access_rows(lay);
  REQUIRE(rows.size() == 4);
  for (size_t k = 0; k < 4; ++k) {
    INFO("row " << k << ": " << rows[k]->what);
    CHECK(rows[k]->what == std::string(f.stores[k] ? "store " : "load ") + std::to_string(f.values[k]));
    if (k) CHECK(rows[k]->y0 > rows[k - 1]->y0);
    // Visible: inside the picture, not scrolled away.
    CHECK(rows[k]->y1 <= float(img.h));
  }
  // The timeline marks each access on its warp's row; two of them (the report's pair) in yellow.
  // The cursor (at the report, which follows the second racing store in its step) may cross a
  // mark's middle: each mark is sampled one pixel inside its left edge.
  int race = 0, other = 0;
  for (int k = 0; k < 64; ++k) {
    const std::string id = "timeline:access:" + std::to_string(k);
    if (!lay.has(id)) continue;
    const Cell& cell = lay.cells.at(id);
    const pal::Rgb c = img.at(int(cell.x0) + 1, int((cell.y0 + cell.y1) * 0.5f));
    if (c == pal::kRaceMark) ++race;
    else if (c == pal::kAccessMark) ++other;
    else FAIL("timeline mark " << id << " has colour " << rgb_str(c));
  }
  CHECK(race == 2);
  CHECK(other == 2);
}

TEST_CASE("clicking an access in Reports moves the cursor to it and selects its lane", "[interleaving]") {
  const LostUpdateFacts f = lost_update_facts();
  const std::string trace = kTraces + "/lost_update.trace", json = kArt + "/lost_update_window.json";
  const std::string common = " --report 0 --size 1280x800 --exit-after-frames 6";
  Run r0 = viz(trace + common + " --dump-layout " + json);
  REQUIRE(r0.status == 0);
  Layout lay;
  REQUIRE(lay.load(json));
  const std::vector<const Cell*> rows = access_rows(lay);
  REQUIRE(rows.size() == 4);
  for (size_t k : {size_t(0), size_t(2), size_t(3)}) {
    const Cell& c = *rows[k];
    const std::string click =
        "click:" + std::to_string(int((c.x0 + c.x1) / 2)) + ":" + std::to_string(int((c.y0 + c.y1) / 2));
    Run r = viz(trace + common + " --keys " + click);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == f.cursors[k]);
    CHECK(r.out.find("selected " + std::to_string(f.warps[k]) + ":0") != std::string::npos);
  }
}

TEST_CASE("shared: the locks window draws the chosen block's copy of a __shared__ array", "[shared]") {
  // tests/viz/core/programs/viz_shared.cu: 3 blocks reduce 64 inputs each in __shared__ partial.
  // The expected cells are replayed here from the trace's RegionUpdate events of the shared
  // region, for the writer's block only (block = warp / warps_per_block).
  auto t = load_trace("shared.trace");
  REQUIRE(t->shared_regions.size() == 1);
  const nlohmann::json& sr = t->shared_regions[0];
  REQUIRE(sr["variable"] == "partial");
  const uint64_t id = sr["id"].get<uint64_t>();
  const tr::Launch& L = t->launches[0];
  const uint64_t wpb = L.warps_per_block;
  REQUIRE(wpb == 2);
  // The region's index in the viewer: Region chunks first, then SharedRegion chunks.
  const std::string ri = std::to_string(t->regions.size());
  // A moment in the middle of the tree: block 1's element 0 gets its third value (after two steps).
  size_t cursor = SIZE_MAX;
  int seen0 = 0;
  for (size_t i = L.first_event; i < L.end_event && cursor == SIZE_MAX; ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && (e.aux & 0xff) == id && e.warp / wpb == 1 && e.a == 0 &&
        ++seen0 == 3)
      cursor = i - L.first_event;
  }
  REQUIRE(cursor != SIZE_MAX);
  // And an early one: block 1's first write to the array (the rest of its copy unwritten).
  size_t early = SIZE_MAX;
  for (size_t i = L.first_event; i < L.end_event && early == SIZE_MAX; ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && (e.aux & 0xff) == id && e.warp / wpb == 1)
      early = i - L.first_event;
  }
  REQUIRE(early < cursor);
  for (const auto& [at, block] : std::vector<std::pair<size_t, uint64_t>>{
           {cursor, 1}, {cursor, 2}, {cursor, 0}, {early, 1}, {early, 0}}) {
    const size_t cursor = at;
    DYNAMIC_SECTION("block " << block << " at event " << cursor) {
      std::vector<int64_t> val(64, -1);  // -1: not written
      for (size_t i = L.first_event; i <= L.first_event + cursor; ++i) {
        const tr::Event& e = t->event(i);
        if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && (e.aux & 0xff) == id && e.warp / wpb == block &&
            e.a < 64)
          val[e.a] = int64_t(e.b);
      }
      int unwritten = 0;
      for (int64_t v : val) unwritten += v < 0;
      const std::string tag = "shared_block" + std::to_string(block) + "_" + std::to_string(cursor);
      const std::string png = kArt + "/" + tag + ".png", json = kArt + "/" + tag + ".json";
      Run r = viz(kTraces + "/shared.trace --export " + png + " --step " + std::to_string(cursor) + " --block " +
                      std::to_string(block) + " --window locks --size 1000x500 --dump-layout " + json);
      REQUIRE(r.status == 0);
      Image img;
      Layout lay;
      REQUIRE(img.load(png));
      REQUIRE(lay.load(json));
      int mismatches = 0;
      for (int i = 0; i < 64; ++i) {
        const std::string cid = "locks:" + ri + ":" + std::to_string(i);
        REQUIRE(lay.cells.count(cid));
        const pal::Rgb want = val[size_t(i)] < 0 ? pal::kSharedUnwritten
                              : val[size_t(i)]   ? pal::kFlagSet
                                                 : pal::kFlagClear;
        // near the cell's top-left corner: its centre holds the element's value as text, and
        // its border the outline of the cell the event under the cursor wrote
        const Cell& cell = lay.cells.at(cid);
        REQUIRE(cell.x1 - cell.x0 >= 12);
        const pal::Rgb got = img.at(int(cell.x0) + 4, int(cell.y0) + 4);
        const std::string what = cell.what;
        if (!near(got, want, 8) || (val[size_t(i)] < 0) != (what == "not written")) {
          ++mismatches;
          UNSCOPED_INFO("element " << i << ": got " << rgb_str(got) << " '" << what << "', expected " << rgb_str(want)
                                   << " (value " << val[size_t(i)] << ")");
        }
      }
      CHECK(mismatches == 0);
      // At this moment block 1 has loaded all 64 and is in its third step; whether blocks 0 and 2
      // have started depends on the schedule, but what the picture shows is what they wrote.
      if (block == 1) CHECK(unwritten == (cursor == early ? 63 : 0));
    }
  }
  // In a window: the block control's arrows change the block drawn (the last block stops there).
  {
    const std::string common = " --step " + std::to_string(cursor) + " --window locks --size 1000x500 --exit-after-frames 6";
    const std::string j0 = kArt + "/shared_window0.json", j1 = kArt + "/shared_window1.json";
    Run r0 = viz(kTraces + "/shared.trace" + common + " --block 0 --dump-layout " + j0);
    REQUIRE(r0.status == 0);
    Layout lay0;
    REQUIRE(lay0.load(j0));
    REQUIRE(lay0.cells.count("control:block-next"));
    CHECK(lay0.cells.at("control:block").what == "block 0");
    const Cell& next = lay0.cells.at("control:block-next");
    const std::string click =
        "click:" + std::to_string(int((next.x0 + next.x1) / 2)) + ":" + std::to_string(int((next.y0 + next.y1) / 2));
    Run r1 = viz(kTraces + "/shared.trace" + common + " --block 1 --keys " + click + " --dump-layout " + j1);
    REQUIRE(r1.status == 0);
    Layout lay1;
    REQUIRE(lay1.load(j1));
    CHECK(lay1.cells.at("control:block").what == "block 2");
    Run r2 = viz(kTraces + "/shared.trace" + common + " --block 2 --keys " + click + "," + click + " --dump-layout " + j1);
    REQUIRE(r2.status == 0);
    REQUIRE(lay1.load(j1));
    CHECK(lay1.cells.at("control:block").what == "block 2");
  }
  // A block the launch does not have is refused with a message.
  Run bad = viz(kTraces + "/shared.trace --export " + kArt + "/shared_bad.png --block 3");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--block 3: launch 0 has 3 block(s) (0..2)") != std::string::npos);
}

// ==== the host row (tests/viz/core/programs/viz_host.cu: ping-pong through mapped memory) ========
TEST_CASE("host: the lanes and timeline windows draw the host's accesses on a host row", "[host]") {
  // The host's accesses are the trace's HostAccess events (read here with synclab::trace): the
  // lanes window's host row is light blue at one, dark blue after one, the inactive colour before
  // the first; the timeline's host row has a tick at each in view, full height for a write, half
  // height for a read.
  auto t = load_trace("host.trace");
  const tr::Launch& L = t->launches[0];
  std::vector<size_t> host, reads, all;  // launch cursors: writes, reads, both
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (t->event(i).kind == uint8_t(tr::EventKind::HostAccess)) {
      (t->event(i).aux & tr::kAuxWrite ? host : reads).push_back(i - L.first_event);
      all.push_back(i - L.first_event);
    }
  REQUIRE(host.size() == 5);  // the program's 5 rounds
  REQUIRE(all[0] > 0);
  // The host's reads are in the trace only where the simulator's host watch can see them (it needs
  // memory protection keys; the trace's header says which).
  const bool reads_recorded = t->header.value("host_accesses", std::string()) == "reads and writes";
  if (!reads_recorded) {
    CHECK(reads.empty());
    WARN("the trace has no host reads on this machine (" << t->header.value("host_accesses", std::string())
                                                          << "): their drawing is not checked");
  } else {
    REQUIRE(reads.size() >= 5);  // the host's reads of pong: -1, 10, 20, 30, 40 at least
  }
  // What the row says at a read, and a read's tick is half a write's height: the host's read of
  // the first answer (10) and its second ping right after it, both in the timeline's view.
  if (reads_recorded) {
    size_t at = 0;
    for (size_t r : reads)
      if (r < host[1]) at = r;
    REQUIRE(at > host[0]);
    const std::string json = kArt + "/host_read.json";
    Run r = viz(kTraces + "/host.trace --step " + std::to_string(at) +
                " --exit-after-frames 4 --size 1280x800 --dump-layout " + json);
    REQUIRE(r.status == 0);
    Layout lay;
    REQUIRE(lay.load(json));
    REQUIRE(lay.has("lanes:host"));
    CHECK(lay.cells.at("lanes:host").what == "host read");
    // The ticks in view (one a pixel: where a read and a write share one, the write is drawn):
    // each names the kind its event has in the trace, and reads are the shorter ones.
    int nread = 0, nwrite = 0;
    float read_h = 1e9f, write_h = 0;
    for (const auto& [id, cell] : lay.cells) {
      if (id.rfind("timeline:host:", 0) != 0) continue;
      const size_t c = std::stoull(id.substr(14));
      const bool w = t->event(L.first_event + c).aux & tr::kAuxWrite;
      CHECK(cell.what == (w ? "host write" : "host read"));
      (w ? nwrite : nread)++;
      if (w)
        write_h = std::max(write_h, cell.y1 - cell.y0);
      else
        read_h = std::min(read_h, cell.y1 - cell.y0);
    }
    REQUIRE(nread > 0);
    REQUIRE(nwrite > 0);
    CHECK(read_h < 0.75f * write_h);
  }
  struct Case {
    size_t cursor;
    pal::Rgb want;
    const char* what;
  };
  for (const Case& c : {Case{host[2], pal::kHostWrite, "at the third write"},
                        Case{host[2] + 1, pal::kHostWrote, "after it"},
                        Case{all[0] - 1, pal::kLaneInactive, "before the first access"}}) {
    DYNAMIC_SECTION(c.what << " (event " << c.cursor << ")") {
      const std::string tag = "host_" + std::to_string(c.cursor);
      const std::string png = kArt + "/" + tag + ".png", json = kArt + "/" + tag + ".json";
      Run r = viz(kTraces + "/host.trace --step " + std::to_string(c.cursor) +
                  " --exit-after-frames 6 --size 1280x800 --screenshot " + png + " --dump-layout " + json);
      REQUIRE(r.status == 0);
      Image img;
      Layout lay;
      REQUIRE(img.load(png));
      REQUIRE(lay.load(json));
      CHECK(lay.cursor == c.cursor);
      REQUIRE(lay.has("lanes:host"));
      const pal::Rgb got = centre(img, lay, "lanes:host");
      INFO("lanes:host is " << rgb_str(got) << ", want " << rgb_str(c.want));
      CHECK(near(got, c.want, 8));
      // the timeline: a tick for each host write in view, in the host colour (where the cursor's
      // white line does not cross it)
      REQUIRE(lay.has("timeline:cursor"));
      const float cursor_x = lay.cells.at("timeline:cursor").x0;
      int ticks = 0;
      for (size_t h : all) {
        const std::string id = "timeline:host:" + std::to_string(h);
        if (!lay.has(id)) continue;
        ++ticks;
        const Cell& tc = lay.cells.at(id);
        if (cursor_x < tc.x0 - 3 || cursor_x > tc.x1 + 3) {
          const pal::Rgb tick = centre(img, lay, id);
          INFO(id << " is " << rgb_str(tick));
          CHECK(near(tick, pal::kHostWrite, 8));
        }
      }
      CHECK(ticks >= 1);
    }
  }
}
