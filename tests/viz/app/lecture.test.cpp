// Lecture mode (synclab-viz --lecture, viz/app/lecture.h, docs/viz.md "Lecture mode").
//
// [lecture-palette]: the lecture palette's state colours, checked with colour science written here
// (not taken from the viewer): every pair at least kMinDeltaE00 apart in CIEDE2000 for normal
// vision and under simulated deuteranopia and protanopia (Machado, Oliveira and Fernandes 2009,
// severity 1), and every state at least 3:1 against the window background (WCAG 2). The same
// measurement of the default palette is printed (docs/viz.md quotes both).
// [lecture-window] (Xvfb) and [lecture-export] (offscreen): a lane's pixel has the lecture colour,
// the font and the lane cells are larger than without --lecture, ] / [ (and Page Down / Page Up)
// land on the interesting events read from the trace here with synclab::trace, and a --lecture
// GIF's frames are drawn with the lecture palette.
// [lecture-layout] (offscreen): what a --lecture export draws at 1920x1080 and 1280x720: Warp lanes
// draws only the lanes a block has (a launch of 4 threads, a partial last warp); a trace without
// regions for Lock bits & flags or Wavefront has no such window, and the others take its room.
// [lecture-lab09] (offscreen): lab 09's simd-deadlock scenario: the lanes that hold bits of the
// block's lock table (a __shared__ lock-bits region) are drawn critical, their warp-mates spinning;
// the lock table is not drawn as a wavefront (nor is locks.trace's global one, [lecture-layout]).
// [lecture-layout] also: a lock-bits region of up to 64 bits has cells of at least 24 px.
// [lecture-text] (offscreen) and [lecture-window]: no text cut at 1920x1080 and 1280x720: every text
// ImGui drew (--dump-layout's "texts": its width measured with the font, and the clip rectangle
// it was drawn in) fits its room, on ten traces; the default layout with the same font fails it.
// [lecture-font] (offscreen): the font ImGui draws with (--dump-layout's "font"): its capitals at
// least 1/52 of the picture's height (14 px at 1280x720, 21 px at 1920x1080).
// [lecture-zoom] (offscreen): lab 09's simd-deadlock with its scenario's options, at 1920x1080 and
// 1280x720: its 1024 lock bits keep their overview and get a zoomed detail of whole words, every bit
// at least 24 px and in view, that shows the deadlock's held bits 32 and 33 (the word the report
// says the lanes poll), outlined in the overview, with no text cut; the detail follows the event at
// the cursor; lock-bits regions of up to 64 bits, and pictures without --lecture, get no detail.
// [wavefront-figure] (offscreen): --window wavefront at lab 09's "gif:" lines' size and at 1280x720,
// with and without --lecture: the grid spans at least 85% of the shorter side with no empty band
// over a fifth of the picture, and a colour key (one entry per cell state, in the cells' colours,
// off the grid, no text cut) is in the PNG and in every frame of the GIF.
#include <stb/stb_image.h>
#ifdef SYNCLAB_VIZ_GIFLIB
#include <gif_lib.h>
#endif
#include <synclab/catch.h>
#include <synclab/trace_reader.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "app_test_util.h"
#include "palette.h"

namespace tr = synclab::trace;
namespace pal = synclab::viz::palette;

namespace {

// ==== colour science ===============================================================================

// sRGB (IEC 61966-2-1) to linear light.
double linear(uint8_t v) {
  const double c = v / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of Color Vision
// Deficiency", IEEE TVCG 15(6), 2009: the matrices for severity 1.0 (dichromacy), applied to
// linear RGB.
using Mat = double[3][3];
const Mat kIdentity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const Mat kProtanopia = {
    {0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}};
const Mat kDeuteranopia = {
    {0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};

struct Lab {
  double L, a, b;
};

// Linear RGB (clipped to [0, 1]) to CIELAB, D65 white (sRGB primaries).
Lab lab_of_linear(const double rgb[3]) {
  double c[3];
  for (int i = 0; i < 3; ++i) c[i] = std::min(1.0, std::max(0.0, rgb[i]));
  const double X = 0.4124564 * c[0] + 0.3575761 * c[1] + 0.1804375 * c[2];
  const double Y = 0.2126729 * c[0] + 0.7151522 * c[1] + 0.0721750 * c[2];
  const double Z = 0.0193339 * c[0] + 0.1191920 * c[1] + 0.9503041 * c[2];
  auto f = [](double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; };
  const double fx = f(X / 0.95047), fy = f(Y / 1.0), fz = f(Z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

// How a colour looks with matrix m (kIdentity: normal vision), in CIELAB.
Lab seen(pal::Rgb c, const Mat& m) {
  const double in[3] = {linear(c.r), linear(c.g), linear(c.b)};
  double out[3];
  for (int i = 0; i < 3; ++i) out[i] = m[i][0] * in[0] + m[i][1] * in[1] + m[i][2] * in[2];
  return lab_of_linear(out);
}

// CIEDE2000 colour difference (CIE 142-2001), kL = kC = kH = 1, as written out by Sharma, Wu and
// Dalal, "The CIEDE2000 color-difference formula: implementation notes, supplementary test data,
// and mathematical observations", Color Research & Application 30(1), 2005.
double ciede2000(const Lab& x, const Lab& y) {
  const double kPi = 3.14159265358979323846;
  auto deg = [&](double r) { return r * 180.0 / kPi; };
  auto rad = [&](double d) { return d * kPi / 180.0; };
  const double C1 = std::hypot(x.a, x.b), C2 = std::hypot(y.a, y.b);
  const double Cm = (C1 + C2) / 2, Cm7 = std::pow(Cm, 7);
  const double G = 0.5 * (1 - std::sqrt(Cm7 / (Cm7 + std::pow(25.0, 7))));
  const double a1 = (1 + G) * x.a, a2 = (1 + G) * y.a;
  const double C1p = std::hypot(a1, x.b), C2p = std::hypot(a2, y.b);
  auto hue = [&](double b, double a) {
    if (a == 0 && b == 0) return 0.0;
    double h = deg(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(x.b, a1), h2 = hue(y.b, a2);
  const double dL = y.L - x.L, dC = C2p - C1p;
  double dh = 0;
  if (C1p * C2p != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
  }
  const double dH = 2 * std::sqrt(C1p * C2p) * std::sin(rad(dh / 2));
  const double Lm = (x.L + y.L) / 2, Cmp = (C1p + C2p) / 2;
  double hm = h1 + h2;
  if (C1p * C2p != 0) {
    hm = (h1 + h2) / 2;
    if (std::fabs(h1 - h2) > 180) hm += hm < 180 ? 180 : -180;
  }
  const double T = 1 - 0.17 * std::cos(rad(hm - 30)) + 0.24 * std::cos(rad(2 * hm)) + 0.32 * std::cos(rad(3 * hm + 6)) -
                   0.20 * std::cos(rad(4 * hm - 63));
  const double dTheta = 30 * std::exp(-std::pow((hm - 275) / 25, 2));
  const double Cmp7 = std::pow(Cmp, 7);
  const double RC = 2 * std::sqrt(Cmp7 / (Cmp7 + std::pow(25.0, 7)));
  const double SL = 1 + 0.015 * (Lm - 50) * (Lm - 50) / std::sqrt(20 + (Lm - 50) * (Lm - 50));
  const double SC = 1 + 0.045 * Cmp, SH = 1 + 0.015 * Cmp * T;
  const double RT = -std::sin(rad(2 * dTheta)) * RC;
  return std::sqrt((dL / SL) * (dL / SL) + (dC / SC) * (dC / SC) + (dH / SH) * (dH / SH) + RT * (dC / SC) * (dH / SH));
}

// WCAG 2 relative luminance and contrast ratio (WCAG 2.1, definitions "relative luminance" and
// "contrast ratio").
double luminance(pal::Rgb c) { return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b); }
double contrast(pal::Rgb x, pal::Rgb y) {
  const double a = luminance(x), b = luminance(y);
  return (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
}

constexpr double kMinDeltaE00 = 14.0;  // every pair of state colours, every vision
constexpr double kMinContrast = 3.0;   // WCAG 2.1 SC 1.4.11 (non-text contrast): 3:1

struct Named {
  const char* name;
  pal::Rgb c;
};

// The colours that show states side by side: the lane states (Warp lanes, and the timeline's
// spans, which use the same colours), a report on the timeline, and the host row.
std::vector<Named> state_colours(const pal::Palette& p) {
  return {{"not started", p.lane_states[0]}, {"active", p.lane_states[1]},         {"masked off", p.lane_states[2]},
          {"at barrier", p.lane_states[3]},  {"spinning", p.lane_states[4]},       {"critical", p.lane_states[5]},
          {"exited", p.lane_states[6]},      {"read old value", p.lane_states[7]}, {"report", p.report_mark},
          {"host access", p.host_write},     {"host accessed", p.host_wrote}};
}

struct Vision {
  const char* name;
  const Mat* m;
};
const Vision kVisions[3] = {{"normal", &kIdentity}, {"deuteranopia", &kDeuteranopia}, {"protanopia", &kProtanopia}};

struct PairDistance {
  double d;
  std::string vision, a, b;
};

// Every pair's distance under each vision, smallest first.
std::vector<PairDistance> distances(const std::vector<Named>& cs) {
  std::vector<PairDistance> out;
  for (const Vision& v : kVisions)
    for (size_t i = 0; i < cs.size(); ++i)
      for (size_t j = i + 1; j < cs.size(); ++j)
        out.push_back({ciede2000(seen(cs[i].c, *v.m), seen(cs[j].c, *v.m)), v.name, cs[i].name, cs[j].name});
  std::sort(out.begin(), out.end(), [](const PairDistance& x, const PairDistance& y) { return x.d < y.d; });
  return out;
}

double min_for(const std::vector<PairDistance>& ds, const std::string& vision) {
  for (const PairDistance& d : ds)
    if (d.vision == vision) return d.d;
  return 0;
}

// ==== running the viewer ===========================================================================

using namespace vapp;

// Cursor of warp 0's BarrierArrive in launch 0 of the barrier trace (its lanes wait there).
uint64_t barrier_arrive0(const tr::Trace& t) {
  const tr::Launch& L = t.launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind == uint8_t(tr::EventKind::BarrierArrive) && e.warp == 0) return i - L.first_event;
  }
  FAIL("no BarrierArrive of warp 0 in the barrier trace");
  return 0;
}

// The interesting events of launch 0, read from the trace: its Report events, its BarrierRelease
// events and the RegionUpdates of a lock-bits region that set a bit that was 0 (not the launch's
// starting snapshot). Cursors, ascending, each once.
std::vector<uint64_t> interesting_events(const tr::Trace& t) {
  std::set<uint64_t> lock_regions;
  for (const nlohmann::json& r : t.regions)
    if (r.value("kind", "") == "lock-bits" && r.contains("id")) lock_regions.insert(r["id"].get<uint64_t>());
  const tr::Launch& L = t.launches[0];
  std::map<uint64_t, std::vector<int>> bits;  // lock region id -> element -> bit
  std::vector<uint64_t> out;
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    const uint64_t c = i - L.first_event;
    if (e.kind == uint8_t(tr::EventKind::Report) || e.kind == uint8_t(tr::EventKind::BarrierRelease)) {
      out.push_back(c);
      continue;
    }
    if (e.kind != uint8_t(tr::EventKind::RegionUpdate)) continue;
    const uint64_t region = e.aux & tr::kRegionIdMask;
    if (!lock_regions.count(region)) continue;
    const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
    const unsigned n = bytes ? 8 * bytes : 1;
    std::vector<int>& b = bits[region];
    bool acquired = false;
    for (unsigned k = 0; k < n; ++k) {
      const uint64_t el = e.a + k;
      if (el >= (1u << 20)) continue;
      if (b.size() <= el) b.resize(el + 1, 0);
      const int v = bytes ? int(e.b >> k & 1) : int(e.b != 0);
      if (v && !b[el]) acquired = true;
      b[el] = v;
    }
    if (acquired && !(e.aux & tr::kRegionSnapshot)) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Where pressing "next" (forward) or "previous" from `cursor` goes, one press, on that list; the
// cursor stays when there is none.
uint64_t press(const std::vector<uint64_t>& evs, uint64_t cursor, bool forward) {
  if (forward) {
    auto it = std::upper_bound(evs.begin(), evs.end(), cursor);
    return it == evs.end() ? cursor : *it;
  }
  auto it = std::lower_bound(evs.begin(), evs.end(), cursor);
  return it == evs.begin() ? cursor : *(it - 1);
}

uint64_t final_event(const Run& r) {
  const size_t at = r.out.find(", event ");
  REQUIRE(at != std::string::npos);
  return std::strtoull(r.out.c_str() + at + 8, nullptr, 10);
}

bool is_lecture_lane_colour(pal::Rgb c) {
  for (const pal::Rgb& s : pal::kLecturePalette.lane_states)
    if (s == c) return true;
  return false;
}

}  // namespace

// ==== the palette ===================================================================================

TEST_CASE("lecture palette: CIEDE2000 and WCAG contrast reproduce published values", "[lecture-palette]") {
  // Sharma, Wu and Dalal (2005), Table 1, pairs 1, 7, 17 and 25.
  CHECK(ciede2000({50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}) == Approx(2.0425).margin(1e-4));
  CHECK(ciede2000({50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}) == Approx(2.3669).margin(1e-4));
  CHECK(ciede2000({50.0, 2.5, 0.0}, {56.0, -27.0, -3.0}) == Approx(31.9030).margin(1e-4));
  CHECK(ciede2000({60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}) == Approx(1.2644).margin(1e-4));
  // White on black is 21:1; a colour against itself 1:1. sRGB white is L* 100.
  CHECK(contrast({255, 255, 255}, {0, 0, 0}) == Approx(21.0));
  CHECK(contrast({128, 64, 200}, {128, 64, 200}) == Approx(1.0));
  CHECK(seen({255, 255, 255}, kIdentity).L == Approx(100.0).margin(0.01));
  // Dichromats cannot tell a red and a green of the same lightness apart as well as we can:
  // the simulation brings them closer (the point of the check below).
  const pal::Rgb red{200, 60, 40}, green{60, 140, 40};
  CHECK(ciede2000(seen(red, kDeuteranopia), seen(green, kDeuteranopia)) <
        0.5 * ciede2000(seen(red, kIdentity), seen(green, kIdentity)));
}

TEST_CASE("lecture palette: state colours stay apart under deuteranopia and protanopia, and stand out on black",
          "[lecture-palette]") {
  const pal::Palette& p = pal::kLecturePalette;
  const std::vector<Named> cs = state_colours(p);
  const std::vector<PairDistance> ds = distances(cs);
  for (const PairDistance& d : ds) {
    INFO(d.vision << ": " << d.a << " / " << d.b << " CIEDE2000 " << d.d);
    CHECK(d.d >= kMinDeltaE00);
  }
  for (const Named& n : cs) {
    INFO(n.name << " " << rgb_str(n.c) << " against the background " << rgb_str(p.background) << ": "
                << contrast(n.c, p.background));
    CHECK(contrast(n.c, p.background) >= kMinContrast);
  }
  // The region cells: a lock bit held / free, a flag set / clear.
  for (const auto& pr : {std::pair<pal::Rgb, pal::Rgb>{p.lock_held, p.lock_free}, {p.flag_set, p.flag_clear}}) {
    for (const Vision& v : kVisions) {
      INFO(v.name << ": " << rgb_str(pr.first) << " / " << rgb_str(pr.second));
      CHECK(ciede2000(seen(pr.first, *v.m), seen(pr.second, *v.m)) >= kMinDeltaE00);
    }
    CHECK(contrast(pr.first, p.background) >= kMinContrast);
    CHECK(contrast(pr.second, p.background) >= kMinContrast);
  }
  // The frame of a large lock table's zoomed detail, and of its part of the overview, stands out from
  // the bits it surrounds and from the background.
  for (const auto& [name, c] : {std::pair<const char*, pal::Rgb>{"lock held", p.lock_held},
                                {"lock free", p.lock_free},
                                {"background", p.background}}) {
    for (const Vision& v : kVisions) {
      INFO("zoom frame / " << name << ", " << v.name);
      CHECK(ciede2000(seen(p.zoom_frame, *v.m), seen(c, *v.m)) >= kMinDeltaE00);
    }
  }
  CHECK(contrast(p.zoom_frame, p.background) >= kMinContrast);
  CHECK(contrast(p.zoom_frame, p.lock_free) >= kMinContrast);
  // The timeline's spans are the lane states' colours, so the check above covers them.
  CHECK(p.span_barrier == p.lane_states[3]);
  CHECK(p.span_spin == p.lane_states[4]);
  CHECK(p.span_critical == p.lane_states[5]);
  // The measurements docs/viz.md quotes.
  std::printf("lecture palette: smallest CIEDE2000: normal %.1f, deuteranopia %.1f, protanopia %.1f\n",
              min_for(ds, "normal"), min_for(ds, "deuteranopia"), min_for(ds, "protanopia"));
  for (size_t i = 0; i < 4 && i < ds.size(); ++i)
    std::printf("  %.1f  %s: %s / %s\n", ds[i].d, ds[i].vision.c_str(), ds[i].a.c_str(), ds[i].b.c_str());
  double lo = 100;
  for (const Named& n : cs) lo = std::min(lo, contrast(n.c, p.background));
  std::printf("  lowest contrast against the background: %.2f:1\n", lo);
}

TEST_CASE("lecture palette: the same check on the default palette (which pairs fail)", "[lecture-palette]") {
  const pal::Palette& p = pal::kDefaultPalette;
  const std::vector<Named> cs = state_colours(p);
  const std::vector<PairDistance> ds = distances(cs);
  std::printf("default palette: pairs under CIEDE2000 %.0f:\n", kMinDeltaE00);
  int failing = 0;
  for (const PairDistance& d : ds)
    if (d.d < kMinDeltaE00) {
      std::printf("  %.1f  %s: %s / %s\n", d.d, d.vision.c_str(), d.a.c_str(), d.b.c_str());
      ++failing;
    }
  std::printf("default palette: states under %.0f:1 against the background %s:\n", kMinContrast,
              rgb_str(p.background).c_str());
  for (const Named& n : cs)
    if (contrast(n.c, p.background) < kMinContrast) std::printf("  %.2f:1  %s\n", contrast(n.c, p.background), n.name);
  // The default palette is the one the lecture palette improves on: it does fail the check, and
  // its worst pair under a simulated dichromacy is worse than the lecture palette's.
  CHECK(failing > 0);
  const std::vector<PairDistance> lecture = distances(state_colours(pal::kLecturePalette));
  CHECK(std::min(min_for(ds, "deuteranopia"), min_for(ds, "protanopia")) <
        std::min(min_for(lecture, "deuteranopia"), min_for(lecture, "protanopia")));
  // The default stays what it was: the viewer without --lecture draws with it.
  CHECK(pal::active_palette.lane_states[1] == p.lane_states[1]);
  CHECK(pal::kLaneAtBarrier == pal::Rgb{240, 160, 32});
}

// ==== a real window (under Xvfb) =====================================================================

TEST_CASE("lecture window: lecture colours, a larger font and larger lane cells", "[lecture-window]") {
  auto t = load_trace("barrier.trace");
  const uint64_t arrive0 = barrier_arrive0(*t);
  const std::string common = kTraces + "/barrier.trace --step " + std::to_string(arrive0) +
                             " --exit-after-frames 6 --size 1280x800 --probe lanes:0:5";
  const std::string png_l = kArt + "/lecture_window.png", json_l = kArt + "/lecture_window.json";
  const std::string png_d = kArt + "/lecture_window_default.png", json_d = kArt + "/lecture_window_default.json";
  Run rl = viz(common + " --lecture --screenshot " + png_l + " --dump-layout " + json_l);
  REQUIRE(rl.status == 0);
  Run rd = viz(common + " --screenshot " + png_d + " --dump-layout " + json_d);
  REQUIRE(rd.status == 0);
  Image il, id;
  Layout ll, ld;
  REQUIRE(il.load(png_l));
  REQUIRE(ll.load(json_l));
  REQUIRE(id.load(png_d));
  REQUIRE(ld.load(json_d));
  CHECK(ll.cursor == arrive0);
  // Warp 0 waits at the barrier: the lecture palette's amber, on screen and in --probe's output.
  const pal::Rgb barrier = pal::kLecturePalette.lane_states[3];
  for (int l : {0, 5, 31}) {
    const Cell& c = ll.at("lanes:0:" + std::to_string(l));
    INFO("lanes:0:" << l << " got " << rgb_str(il.at(c.cx(), c.cy())));
    CHECK(il.at(c.cx(), c.cy()) == barrier);
    CHECK(c.what == "at barrier");
  }
  char probe[64];
  std::snprintf(probe, sizeof probe, "probe lanes:0:5 %u %u %u at barrier", barrier.r, barrier.g, barrier.b);
  CHECK(rl.out.find(probe) != std::string::npos);
  // Without --lecture the same cell keeps the default colour.
  const Cell& cd = ld.at("lanes:0:5");
  CHECK(id.at(cd.cx(), cd.cy()) == pal::kDefaultPalette.lane_states[3]);
  // Warp 1 is not at the barrier: a lecture colour too, not a default one.
  const Cell& w1 = ll.at("lanes:1:5");
  CHECK(is_lecture_lane_colour(il.at(w1.cx(), w1.cy())));
  // The window background between two lane groups (lanes 7 and 8) is the lecture background.
  const Cell& l7 = ll.at("lanes:0:7");
  const Cell& l8 = ll.at("lanes:0:8");
  CHECK(il.at(int((l7.x1 + l8.x0) * 0.5f), l7.cy()) == pal::kLecturePalette.background);
  // ... and without --lecture the default palette's background (what its contrast ratios use).
  const Cell& d7 = ld.at("lanes:0:7");
  const Cell& d8 = ld.at("lanes:0:8");
  CHECK(id.at(int((d7.x1 + d8.x0) * 0.5f), d7.cy()) == pal::kDefaultPalette.background);
  // The font: the source line's highlight is one text line high (22 px font against 15 px).
  const Cell& sl = ll.at("source:line");
  const Cell& sd = ld.at("source:line");
  INFO("source line height: lecture " << sl.height() << ", default " << sd.height());
  CHECK(sl.height() >= 1.3f * sd.height());
  // Larger lane cells (same window size).
  INFO("lane cell: lecture " << ll.at("lanes:0:0").width() << " px, default " << cd.width() << " px");
  CHECK(ll.at("lanes:0:0").width() >= 1.3f * cd.width());
  CHECK(ll.at("lanes:0:0").height() >= 1.3f * cd.height());
}

TEST_CASE("lecture window: ] and [ step through the interesting events the trace names, one per press",
          "[lecture-window]") {
  const std::string common = " --exit-after-frames 3 --size 1000x700";
  SECTION("locks: lock acquires, one per press, forward and back") {
    auto t = load_trace("locks.trace");
    const std::vector<uint64_t> evs = interesting_events(*t);
    REQUIRE(evs.size() >= 6);
    uint64_t c = 0;
    for (int i = 0; i < 4; ++i) c = press(evs, c, true);
    const uint64_t after4 = c;
    c = press(evs, c, false);
    REQUIRE(after4 != c);
    Run r = viz(kTraces + "/locks.trace --lecture --step first --keys ],],],],[" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == c);
    // Page Down / Page Up (a presentation remote) do the same in lecture mode...
    Run r2 =
        viz(kTraces + "/locks.trace --lecture --step first --keys pagedown,pagedown,pagedown,pagedown,pageup" + common);
    REQUIRE(r2.status == 0);
    CHECK(final_event(r2) == c);
    // ... and keep their 10000-event steps without it.
    Run r3 = viz(kTraces + "/locks.trace --step first --keys pagedown" + common);
    REQUIRE(r3.status == 0);
    CHECK(final_event(r3) == std::min<uint64_t>(10000, t->launches[0].event_count() - 1));
  }
  SECTION("flagship: the lock acquire, then the deadlock report; nothing after the last") {
    auto t = load_trace("flagship.trace");
    const std::vector<uint64_t> evs = interesting_events(*t);
    REQUIRE(evs.size() >= 2);
    uint64_t c = 0;
    for (int i = 0; i < 2; ++i) c = press(evs, c, true);
    Run r = viz(kTraces + "/flagship.trace --lecture --step first --keys ],]" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == c);
    // From the last event: [ goes to the last interesting event; ] from there stays.
    Run r2 = viz(kTraces + "/flagship.trace --step last --keys [,[,]" + common);
    REQUIRE(r2.status == 0);
    const uint64_t last = t->launches[0].event_count() - 1;
    uint64_t c2 = press(evs, last, false);
    c2 = press(evs, c2, false);
    c2 = press(evs, c2, true);
    CHECK(final_event(r2) == c2);
  }
  SECTION("barrier: its barrier release") {
    auto t = load_trace("barrier.trace");
    const std::vector<uint64_t> evs = interesting_events(*t);
    REQUIRE(!evs.empty());
    Run r = viz(kTraces + "/barrier.trace --lecture --step first --keys ]" + common);
    REQUIRE(r.status == 0);
    CHECK(final_event(r) == press(evs, 0, true));
  }
}

// ==== offscreen export ===============================================================================

TEST_CASE("lecture export: a PNG in the lecture palette, a larger font without --font-size", "[lecture-export]") {
  auto t = load_trace("barrier.trace");
  const uint64_t arrive0 = barrier_arrive0(*t);
  const std::string png = kArt + "/lecture_export.png", json = kArt + "/lecture_export.json";
  Run r = viz(kTraces + "/barrier.trace --lecture --export " + png + " --step " + std::to_string(arrive0) +
                  " --dump-layout " + json + " --probe lanes:0:0",
              kNoDisplay);
  REQUIRE(r.status == 0);
  Image img;
  Layout lay;
  REQUIRE(img.load(png));
  REQUIRE(lay.load(json));
  const Cell& c = lay.at("lanes:0:0");
  CHECK(img.at(c.cx(), c.cy()) == pal::kLecturePalette.lane_states[3]);
  // An explicit --font-size wins over lecture mode's 22 px.
  const std::string json15 = kArt + "/lecture_export_15.json";
  Run r15 = viz(kTraces + "/barrier.trace --lecture --font-size 15 --export " + kArt +
                    "/lecture_export_15.png --step " + std::to_string(arrive0) + " --dump-layout " + json15,
                kNoDisplay);
  REQUIRE(r15.status == 0);
  Layout l15;
  REQUIRE(l15.load(json15));
  CHECK(lay.at("source:line").height() > l15.at("source:line").height());
}

#ifdef SYNCLAB_VIZ_GIFLIB
TEST_CASE("lecture export: every frame of a --lecture GIF draws the lanes in the lecture palette", "[lecture-export]") {
  auto t = load_trace("barrier.trace");
  const uint64_t arrive0 = barrier_arrive0(*t);
  const std::string gif = kArt + "/lecture.gif", json = kArt + "/lecture_gif.json";
  // The layout of the last frame (--to): the same size and style as the GIF.
  Run rl = viz(kTraces + "/barrier.trace --lecture --size 1280x720 --export " + kArt + "/lecture_gif_last.png --step " +
                   std::to_string(arrive0) + " --dump-layout " + json,
               kNoDisplay);
  REQUIRE(rl.status == 0);
  Layout lay;
  REQUIRE(lay.load(json));
  Run r = viz(kTraces + "/barrier.trace --lecture --size 1280x720 --export " + gif + " --from first --to " +
                  std::to_string(arrive0) + " --frames 4",
              kNoDisplay);
  REQUIRE(r.status == 0);
  int e = 0;
  GifFileType* g = DGifOpenFileName(gif.c_str(), &e);
  REQUIRE(g);
  REQUIRE(DGifSlurp(g) == GIF_OK);
  CHECK(g->SWidth == 1280);
  CHECK(g->SHeight == 720);
  REQUIRE(g->ImageCount == 4);
  // Each frame over the previous one (synclab-viz stores the rectangle that changed).
  std::vector<pal::Rgb> screen(size_t(g->SWidth) * size_t(g->SHeight), pal::Rgb{0, 0, 0});
  for (int i = 0; i < g->ImageCount; ++i) {
    const SavedImage& im = g->SavedImages[i];
    const GifImageDesc& d = im.ImageDesc;
    const ColorMapObject* map = d.ColorMap ? d.ColorMap : g->SColorMap;
    REQUIRE(map);
    REQUIRE(d.Left + d.Width <= g->SWidth);
    REQUIRE(d.Top + d.Height <= g->SHeight);
    bool indices_ok = true;
    for (int y = 0; y < d.Height; ++y)
      for (int x = 0; x < d.Width; ++x) {
        const int k = im.RasterBits[size_t(y) * size_t(d.Width) + size_t(x)];
        if (k >= map->ColorCount) {
          indices_ok = false;
          continue;
        }
        const GifColorType c = map->Colors[k];
        screen[size_t(d.Top + y) * size_t(g->SWidth) + size_t(d.Left + x)] = {c.Red, c.Green, c.Blue};
      }
    REQUIRE(indices_ok);
    for (uint32_t w = 0; w < 2; ++w)
      for (int l : {0, 5, 16, 31}) {
        const Cell& c = lay.at("lanes:" + std::to_string(w) + ":" + std::to_string(l));
        const pal::Rgb got = screen[size_t(c.cy()) * size_t(g->SWidth) + size_t(c.cx())];
        INFO("frame " << i << " lanes:" << w << ":" << l << " " << rgb_str(got));
        CHECK(is_lecture_lane_colour(got));
      }
    if (i == g->ImageCount - 1) {  // at --to, warp 0 waits at the barrier
      const Cell& c = lay.at("lanes:0:5");
      CHECK(screen[size_t(c.cy()) * size_t(g->SWidth) + size_t(c.cx())] == pal::kLecturePalette.lane_states[3]);
    }
  }
  DGifCloseFile(g, &e);
}
#endif

// ==== the lecture layout (offscreen, as a slide export draws it) =====================================

namespace {

// A --lecture export of TRACE at SIZE with OPTIONS: its picture and layout (named NAME).
void lecture_export(const std::string& trace, const std::string& name, const std::string& size,
                    const std::string& options, Image* img, Layout* lay) {
  const std::string png = kArt + "/" + name + ".png", json = kArt + "/" + name + ".json";
  Run r = viz(kTraces + "/" + trace + " --lecture --size " + size + " --export " + png + " " + options +
                  " --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  REQUIRE(img->load(png));
  REQUIRE(lay->load(json));
}

// The lane cells of warp W in a layout: their lane numbers.
std::set<int> lane_cells(const Layout& lay, uint32_t w) {
  std::set<int> lanes;
  const std::string prefix = "lanes:" + std::to_string(w) + ":";
  for (const auto& [id, c] : lay.cells)
    if (id.rfind(prefix, 0) == 0) lanes.insert(std::stoi(id.substr(prefix.size())));
  return lanes;
}

}  // namespace

TEST_CASE("lecture layout: Warp lanes draws only the lanes a block has", "[lecture-layout]") {
  // small.trace: launch 0 has 4 threads, launch 1 36 (a full warp, then 4 lanes).
  auto t = load_trace("small.trace");
  REQUIRE(t->launches.size() == 2);
  const std::set<int> four = {0, 1, 2, 3};
  std::set<int> all;
  for (int l = 0; l < 32; ++l) all.insert(l);
  for (const std::string size : {"1920x1080", "1280x720"}) {
    SECTION("a launch of 4 threads at " + size) {
      Image img;
      Layout lay;
      lecture_export("small.trace", "lecture_small4_" + size, size, "--launch 0 --step last", &img, &lay);
      CHECK(lane_cells(lay, 0) == four);
      CHECK(lane_cells(lay, 1).empty());
      // Where lane 4 would be (one lane pitch right of lane 3) the window's background shows.
      const Cell& l2 = lay.at("lanes:0:2");
      const Cell& l3 = lay.at("lanes:0:3");
      const int x4 = l3.cx() + int(l3.x0 - l2.x0);
      CHECK(img.at(x4, l3.cy()) == pal::kLecturePalette.background);
      CHECK(img.at(l3.cx(), l3.cy()) == pal::kLecturePalette.lane_states[6]);  // exited
    }
    SECTION("a partial last warp at " + size) {
      Image img;
      Layout lay;
      lecture_export("small.trace", "lecture_small36_" + size, size, "--launch 1 --step last", &img, &lay);
      CHECK(lane_cells(lay, 0) == all);
      CHECK(lane_cells(lay, 1) == four);
      const Cell& l3 = lay.at("lanes:1:3");
      const Cell& w0l4 = lay.at("lanes:0:4");
      CHECK(img.at(w0l4.cx(), l3.cy()) == pal::kLecturePalette.background);
    }
  }
}

TEST_CASE("lecture layout: windows with nothing to show are left out, the others take their room", "[lecture-layout]") {
  for (const std::string size : {"1920x1080", "1280x720"}) {
    SECTION("no region at all (barrier) at " + size) {
      Image img;
      Layout lay;
      lecture_export("barrier.trace", "lecture_noregions_" + size, size, "--step first", &img, &lay);
      // No Wavefront window (its note on synclab_region would be all it showed), no Lock bits.
      CHECK(!lay.has("window:wavefront"));
      CHECK(!lay.has("window:locks"));
      // Source takes their place: from the top of the region windows' row (Warp lanes' top).
      const Cell& src = lay.at("window:source");
      const Cell& lanes = lay.at("window:lanes");
      CHECK(src.y0 == lanes.y0);
      CHECK(src.x0 == lanes.x1);
      CHECK(src.x1 == float(lay.w));
      // Without --lecture both windows are there, as before.
      const std::string json = kArt + "/lecture_noregions_default_" + size + ".json";
      Run r = viz(kTraces + "/barrier.trace --size " + size + " --export " + kArt + "/lecture_noregions_default_" +
                      size + ".png --step first --dump-layout " + json,
                  kNoDisplay);
      REQUIRE(r.status == 0);
      Layout ld;
      REQUIRE(ld.load(json));
      CHECK(ld.has("window:wavefront"));
      CHECK(ld.has("window:locks"));
    }
    SECTION("lock bits, no wavefront (flagship) at " + size) {
      Image img;
      Layout lay;
      lecture_export("flagship.trace", "lecture_nowave_" + size, size, "--step report:0", &img, &lay);
      CHECK(!lay.has("window:wavefront"));
      const Cell& locks = lay.at("window:locks");
      CHECK(locks.x0 == lay.at("window:lanes").x1);
      CHECK(locks.x1 == float(lay.w));
      CHECK(lay.has("locks:0:0"));
    }
    SECTION("a wavefront, no lock bits (wavefront) at " + size) {
      Image img;
      Layout lay;
      lecture_export("wavefront.trace", "lecture_nolocks_" + size, size, "--step last", &img, &lay);
      CHECK(!lay.has("window:locks"));
      const Cell& wave = lay.at("window:wavefront");
      CHECK(wave.x0 == lay.at("window:lanes").x1);
      CHECK(wave.x1 == float(lay.w));
      CHECK(lay.has("wavefront:0:0:0"));
    }
  }
}

namespace {

// The bits of launch 0's shared lock-bits regions (synclab_region_shared) held after the event at
// `cursor`, read from the trace, with their holders: the lane of the update that set each bit from
// 0 to 1, while no later update has cleared it. (region, block, bit) -> (warp, lane).
using HeldBits = std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::pair<uint32_t, int>>;
HeldBits shared_held_bits(const tr::Trace& t, uint64_t cursor) {
  std::set<uint64_t> lock_regions;
  for (const nlohmann::json& r : t.shared_regions)
    if (r.value("kind", "") == "lock-bits" && r.contains("id")) lock_regions.insert(r["id"].get<uint64_t>());
  REQUIRE(!lock_regions.empty());
  const tr::Launch& L = t.launches[0];
  const uint64_t wpb = std::max<uint64_t>(L.warps_per_block, 1);
  HeldBits held;
  for (size_t i = L.first_event; i <= L.first_event + cursor && i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind != uint8_t(tr::EventKind::RegionUpdate) || (e.aux & tr::kRegionSnapshot)) continue;
    const uint64_t region = e.aux & tr::kRegionIdMask;
    if (!lock_regions.count(region)) continue;
    const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
    for (unsigned k = 0; k < (bytes ? 8 * bytes : 1u); ++k) {
      const auto key = std::make_tuple(region, e.warp / wpb, e.a + k);
      const bool v = bytes ? (e.b >> k & 1) : e.b != 0;
      if (v && !held.count(key)) held[key] = {e.warp, e.lane};
      if (!v) held.erase(key);
    }
  }
  return held;
}

// The lanes that hold a bit of a shared lock-bits region of launch 0 after the event at `cursor`
// (shared_held_bits), as (warp, lane).
std::set<std::pair<uint32_t, int>> shared_lock_holders(const tr::Trace& t, uint64_t cursor) {
  std::set<std::pair<uint32_t, int>> lanes;
  for (const auto& [key, h] : shared_held_bits(t, cursor)) lanes.insert(h);
  return lanes;
}

}  // namespace

TEST_CASE("lecture layout: lab 09's simd-deadlock draws the lanes that hold lock bits as critical", "[lecture-lab09]") {
  // The scenario's own trace and event (labs/09-tiny-lock-wavefronts/scenarios.txt: --step report:0).
  auto t = load_trace("lab09_simd_deadlock.trace");
  uint64_t report = 0;
  const tr::Launch& L = t->launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (t->event(i).kind == uint8_t(tr::EventKind::Report)) {
      report = i - L.first_event;
      break;
    }
  REQUIRE(report > 0);
  const std::set<std::pair<uint32_t, int>> holders = shared_lock_holders(*t, report);
  // Two lanes of warp 0 hold bits 32 and 33; their 30 warp-mates spin on them.
  REQUIRE(holders.size() == 2);
  for (const std::string size : {"1920x1080", "1280x720"}) {
    SECTION("at " + size) {
      Image img;
      Layout lay;
      lecture_export("lab09_simd_deadlock.trace", "lecture_lab09_simd_" + size, size, "--step report:0", &img, &lay);
      REQUIRE(lay.cursor == report);
      int critical = 0, spinning = 0;
      for (int l = 0; l < 32; ++l) {
        const std::string id = "lanes:0:" + std::to_string(l);
        const Cell& c = lay.at(id);
        INFO(id << " is " << c.what << ", " << rgb_str(img.at(c.cx(), c.cy())));
        if (holders.count({0u, l})) {
          // held, not exited, not at a barrier: critical wins over masked off (docs/viz.md)
          CHECK(c.what == "in critical section");
          CHECK(img.at(c.cx(), c.cy()) == pal::kLecturePalette.lane_states[5]);
          ++critical;
        } else {
          CHECK(c.what == "spinning");
          CHECK(img.at(c.cx(), c.cy()) == pal::kLecturePalette.lane_states[4]);
          ++spinning;
        }
      }
      CHECK(critical == 2);
      CHECK(spinning == 30);
    }
  }
}

namespace {

int wavefront_cells(const Layout& lay) {
  int n = 0;
  for (const auto& [id, c] : lay.cells) n += id.rfind("wavefront:", 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("lecture layout: lab 09's lock table is not drawn as a wavefront", "[lecture-lab09]") {
  for (const std::string size : {"1920x1080", "1280x720"}) {
    SECTION("at " + size) {
      Image img;
      Layout lay;
      lecture_export("lab09_simd_deadlock.trace", "lecture_lab09_nowave_" + size, size, "--step report:0", &img, &lay);
      // The lock table (lock-bits, 32 x 32) and hist (an array of one row): no table for the
      // Wavefront window, so lecture mode has none; Lock bits & flags takes its room.
      CHECK(!lay.has("window:wavefront"));
      CHECK(wavefront_cells(lay) == 0);
      const Cell& locks = lay.at("window:locks");
      CHECK(locks.x1 == float(lay.w));
      CHECK(lay.at("locks:0:32").what == "held");
      CHECK(lay.at("locks:0:33").what == "held");
    }
  }
  // Without --lecture the Wavefront window is there, with no cells of the lock table in it ...
  const std::string json = kArt + "/lab09_nowave_default.json";
  Run r = viz(kTraces + "/lab09_simd_deadlock.trace --export " + kArt +
                  "/lab09_nowave_default.png --step report:0 --dump-layout " + json,
              kNoDisplay);
  REQUIRE(r.status == 0);
  Layout ld;
  REQUIRE(ld.load(json));
  CHECK(ld.has("window:wavefront"));
  CHECK(wavefront_cells(ld) == 0);
  // ... and --window wavefront refuses the trace, naming its regions.
  std::remove((kArt + "/lab09_wave_refused.png").c_str());
  Run rw = viz(kTraces + "/lab09_simd_deadlock.trace --window wavefront --export " + kArt +
                   "/lab09_wave_refused.png --step report:0",
               kNoDisplay);
  CHECK(rw.status == 1);
  CHECK(rw.err.find("\"locks\" (lock-bits, 1024 elements in 32 rows)") != std::string::npos);
  CHECK(!exists(kArt + "/lab09_wave_refused.png"));
}

TEST_CASE("lecture layout: a global lock-bits region of 32 x 32 is not a wavefront either", "[lecture-layout]") {
  Image img;
  Layout lay;
  lecture_export("locks.trace", "lecture_locks_nowave", "1280x720", "--step last", &img, &lay);
  CHECK(!lay.has("window:wavefront"));
  CHECK(wavefront_cells(lay) == 0);
  CHECK(lay.has("locks:0:1023"));
  Run rw = viz(kTraces + "/locks.trace --window wavefront --export " + kArt + "/locks_wave_refused.png", kNoDisplay);
  CHECK(rw.status == 1);
}

TEST_CASE("lecture layout: up to 64 lock bits are drawn at least 24 px, in view", "[lecture-layout]") {
  struct Case {
    std::string trace, step;
    int region;
    uint64_t bits;
    bool fits;  // all of it in view (else the window scrolls; the lecture font grows with the height, so the
                // layout at 1920x1080 is the one at 1280x720, larger)
  };
  // flagship: one lock word (32 bits); contents: 64 bits (2 x 32, drawn 4 x 16) below an array and
  // flags, one region more than the window's height has room for.
  const Case cases[] = {{"flagship.trace", "report:0", 0, 32, true}, {"contents.trace", "last", 2, 64, false}};
  for (const Case& k : cases)
    for (const std::string size : {"1920x1080", "1280x720"}) {
      SECTION(k.trace + " at " + size) {
        Image img;
        Layout lay;
        lecture_export(k.trace, "lecture_bits_" + k.trace + "_" + size, size, "--step " + k.step, &img, &lay);
        const Cell& win = lay.at("window:locks");
        for (uint64_t i = 0; i < k.bits; ++i) {
          const std::string id = "locks:" + std::to_string(k.region) + ":" + std::to_string(i);
          const Cell& c = lay.at(id);
          INFO(id << " [" << c.x0 << ", " << c.y0 << ", " << c.x1 << ", " << c.y1 << "] in the window [" << win.x0
                  << ", " << win.y0 << ", " << win.x1 << ", " << win.y1 << "]");
          CHECK(c.width() >= 24);
          CHECK(c.height() >= 24);
          // in view: inside the window, not scrolled away
          CHECK(c.x0 >= win.x0);
          CHECK(c.x1 <= win.x1);
          if (k.fits) {
            CHECK(c.y0 >= win.y0);
            CHECK(c.y1 <= win.y1);
            // drawn in the lecture palette's held / free colours
            const pal::Rgb want = c.what == "held" ? pal::kLecturePalette.lock_held : pal::kLecturePalette.lock_free;
            CHECK(img.at(c.cx(), c.cy()) == want);
          }
        }
      }
    }
}

// ==== no text cut (--dump-layout's "texts") ===================================================

namespace {

struct TextCheck {
  size_t texts = 0;
  std::vector<std::string> cut;  // "window: 'text' [x0, y0, x1, y1] in [room]"
  std::set<std::string> drawn;   // every text, as drawn
};

// Every text ImGui drew in the frame --dump-layout wrote: its rectangle (measured with the font)
// inside the room it had (the clip rectangle it was drawn with), unless its window scrolls that way
// (Source's code, a long list), and no "..." of a text ImGui shortened.
TextCheck check_texts(const std::string& json_path) {
  TextCheck r;
  std::ifstream f(json_path);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!j.is_discarded());
  for (const nlohmann::json& c : j["texts"]) {
    ++r.texts;
    const std::string what = c["what"].get<std::string>();
    r.drawn.insert(what);
    const auto& rect = c["rect"];
    const auto& room = c["room"];
    const bool sx = c["scrolls"][0].get<bool>(), sy = c["scrolls"][1].get<bool>();
    const auto v = [](const nlohmann::json& a, int i) { return a[size_t(i)].get<float>(); };
    const bool cut_x = v(rect, 0) < v(room, 0) - 0.5f || v(rect, 2) > v(room, 2) + 0.5f;
    const bool cut_y = v(rect, 1) < v(room, 1) - 0.5f || v(rect, 3) > v(room, 3) + 0.5f;
    if (c["ellipsis"].get<bool>() || (cut_x && !sx) || (cut_y && !sy)) {
      std::ostringstream s;
      s << c["window"].get<std::string>() << ": '" << what << "' " << rect.dump() << " in " << room.dump()
        << (c["ellipsis"].get<bool>() ? " (ellipsis)" : "");
      r.cut.push_back(s.str());
    }
  }
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "  " + x + "\n";
  return s;
}

}  // namespace

TEST_CASE("lecture text: no text is cut at 1920x1080 and 1280x720", "[lecture-text]") {
  struct Case {
    std::string trace, options;
  };
  std::vector<Case> cases = {
      {"flagship.trace", "--step report:0"},  {"barrier.trace", "--step first"},  {"locks.trace", ""},
      {"wavefront.trace", "--step last"},     {"lost_update.trace", "--report 0"}, {"message.trace", "--step stale"},
      {"shared.trace", ""},                   {"host.trace", ""},                  {"contents.trace", "--step last"}};
  if (exists(kTraces + "/lab09_simd_deadlock.trace")) cases.push_back({"lab09_simd_deadlock.trace", "--step report:0"});
  for (const Case& k : cases)
    for (const std::string size : {"1920x1080", "1280x720"}) {
      SECTION(k.trace + " " + k.options + " at " + size) {
        Image img;
        Layout lay;
        lecture_export(k.trace, "lecture_text_" + k.trace + "_" + size, size, k.options, &img, &lay);
        const TextCheck r = check_texts(kArt + "/lecture_text_" + k.trace + "_" + size + ".json");
        INFO(r.cut.size() << " of " << r.texts << " texts cut:\n" << joined(r.cut));
        CHECK(r.texts >= 40);  // the texts were recorded (the viewer's link-time hook works)
        CHECK(r.cut.empty());
        // Texts that used to be cut are drawn whole: the Legend's, the Reports window's title, the
        // accesses of the lost update.
        CHECK(r.drawn.count("masked off"));
        if (k.trace == "flagship.trace") {
          CHECK(r.drawn.count("Reports (1)"));
          CHECK(r.drawn.count("count_under_lock  deadlock"));
        }
        if (k.trace == "lost_update.trace") {
          bool load = false;
          for (const std::string& t : r.drawn) load = load || t.find(": load 0") != std::string::npos;
          CHECK(load);  // (the list scrolls before the stores)
        }
      }
    }
  SECTION("the same measurement finds the cut texts of the default layout with a 22 px font") {
    const std::string json = kArt + "/lecture_text_default_flagship.json";
    Run r = viz(kTraces + "/flagship.trace --font-size 22 --size 1280x720 --step report:0 --export " + kArt +
                    "/lecture_text_default_flagship.png --dump-layout " + json,
                kNoDisplay);
    REQUIRE(r.status == 0);
    const TextCheck t = check_texts(json);
    INFO(joined(t.cut));
    CHECK(t.cut.size() >= 3);  // the lanes' mask, the Reports' table, the Legend's two columns
  }
}

TEST_CASE("lecture window: no text is cut at 1920x1080 and 1280x720, the start hint included", "[lecture-window]") {
  for (const std::string size : {"1920x1080", "1280x720"}) {
    SECTION("flagship at " + size) {
      const std::string json = kArt + "/lecture_window_text_" + size + ".json";
      Run r = viz(kTraces + "/flagship.trace --lecture --size " + size + " --exit-after-frames 6 --screenshot " + kArt +
                  "/lecture_window_text_" + size + ".png --dump-layout " + json);
      REQUIRE(r.status == 0);
      const TextCheck t = check_texts(json);
      INFO(t.cut.size() << " of " << t.texts << " texts cut:\n" << joined(t.cut));
      CHECK(t.texts >= 40);
      CHECK(t.cut.empty());
      // The flagship opens at its deadlock report, at the end of a long launch: the hint is shown, whole.
      CHECK(t.drawn.count("Home, then Space: watch it happen from the first event"));
      CHECK(t.drawn.count("speed"));
    }
  }
}

// ==== the smallest glyph (--dump-layout's "font") =========================================================

namespace {

nlohmann::json layout_font(const std::string& json_path) {
  std::ifstream f(json_path);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!j.is_discarded());
  REQUIRE(j.contains("font"));
  return j["font"];
}

}  // namespace

TEST_CASE("lecture font: capitals at least 1/52 of the picture's height at 1920x1080 and 1280x720", "[lecture-font]") {
  // docs/viz.md, "Lecture mode": 16 arcminutes (the smallest character height ANSI/HFES 100-2007
  // accepts) seen from four picture heights away is 1/52 of the picture's height.
  for (const auto& [size, lines, px, cap] : {std::make_tuple(std::string("1920x1080"), 1080, 33.0, 21.0),
                                             std::make_tuple(std::string("1280x720"), 720, 22.0, 14.0)}) {
    SECTION("--lecture at " + size) {
      Image img;
      Layout lay;
      lecture_export("flagship.trace", "lecture_font_" + size, size, "--step report:0", &img, &lay);
      const nlohmann::json f = layout_font(kArt + "/lecture_font_" + size + ".json");
      INFO("font " << f.dump());
      CHECK(f["name"].get<std::string>().find("DejaVuSans.ttf") != std::string::npos);  // the TTF, not a bitmap
      CHECK(f["size_px"].get<double>() >= px);
      CHECK(f["cap_height_px"].get<double>() >= cap);
      CHECK(f["cap_height_px"].get<double>() * 52 >= lines);
      CHECK(f["x_height_px"].get<double>() >= 0.7 * cap);
    }
  }
  SECTION("the default font is under it; --font-size still wins over --lecture") {
    const std::string json = kArt + "/lecture_font_default.json";
    Run r = viz(kTraces + "/flagship.trace --size 1280x720 --export " + kArt +
                    "/lecture_font_default.png --dump-layout " + json,
                kNoDisplay);
    REQUIRE(r.status == 0);
    const nlohmann::json d = layout_font(json);
    INFO("font " << d.dump());
    CHECK(d["size_px"].get<double>() == 15);
    CHECK(d["cap_height_px"].get<double>() * 52 < 720);
    Image img;
    Layout lay;
    lecture_export("flagship.trace", "lecture_font_given", "1920x1080", "--font-size 18", &img, &lay);
    CHECK(layout_font(kArt + "/lecture_font_given.json")["size_px"].get<double>() == 18);
  }
}

// ==== the zoomed detail of a large lock table (lecture mode) ========================================

namespace {

// A scenario's synclab-viz options as scripts/scenarios.sh gives them (scenario_viz_options): the
// fields after the third of its line in labs/LAB/scenarios.txt, a "layout: a, b" field as
// --layout a,b. (Options without quotes: the ones this test reads have none.)
std::string scenario_viewer_options(const std::string& lab, const std::string& name) {
  std::ifstream f(std::string(VIZ_SOURCE_DIR) + "/labs/" + lab + "/scenarios.txt");
  REQUIRE(f);
  auto trim = [](std::string x) {
    x.erase(0, x.find_first_not_of(" \t"));
    x.erase(x.find_last_not_of(" \t\r") + 1);
    return x;
  };
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, '|');) fields.push_back(trim(field));
    if (fields.size() < 4 || fields[0] != name) continue;
    std::string opts;
    for (size_t i = 3; i < fields.size(); ++i) {
      if (fields[i].rfind("layout:", 0) == 0) {
        std::string keys;
        for (char c : fields[i].substr(7))
          if (c != ' ' && c != '\t') keys += c;
        opts += " --layout " + keys;
      } else {
        opts += " " + fields[i];
      }
    }
    return opts;
  }
  FAIL("no scenario " << name << " in labs/" << lab << "/scenarios.txt");
  return "";
}

// The detail's cells in a layout ("zoom:REGION:BIT"): their bit numbers.
std::set<uint64_t> zoom_bits(const Layout& lay, int region) {
  std::set<uint64_t> bits;
  const std::string prefix = "zoom:" + std::to_string(region) + ":";
  for (const auto& [id, c] : lay.cells)
    if (id.rfind(prefix, 0) == 0) bits.insert(std::stoull(id.substr(prefix.size())));
  return bits;
}

// Cells of a layout whose id starts with "zoom" (the detail, its frame, its outline in the overview).
int zoom_cells(const Layout& lay) {
  int n = 0;
  for (const auto& [id, c] : lay.cells) n += id.rfind("zoom", 0) == 0;
  return n;
}

// The bits a detail's label names: "bits 32-63 (word 1)", "bits 32-95 (words 1-2)": [lo, hi].
bool label_bits(const std::string& label, uint64_t* lo, uint64_t* hi) {
  unsigned long long a = 0, b = 0;
  if (std::sscanf(label.c_str(), "bits %llu-%llu (word", &a, &b) != 2) return false;
  *lo = a;
  *hi = b;
  return true;
}

// Whether the picture has `want` on a stroke through the rectangle's top edge (a frame drawn
// 2 px wide there, antialiased on either side).
bool top_edge_is(const Image& img, const Cell& c, pal::Rgb want) {
  for (int y = int(c.y0) - 1; y <= int(c.y0) + 1; ++y)
    if (y >= 0 && y < img.h && img.at(c.cx(), y) == want) return true;
  return false;
}

uint64_t first_report(const tr::Trace& t) {
  const tr::Launch& L = t.launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (t.event(i).kind == uint8_t(tr::EventKind::Report)) return i - L.first_event;
  return 0;
}

}  // namespace

TEST_CASE("lecture zoom: lab 09's 1024 lock bits get a detail of the deadlock's word, at least 24 px a bit",
          "[lecture-zoom]") {
  const pal::Palette& lp = pal::kLecturePalette;
  auto t = load_trace("lab09_simd_deadlock.trace");
  const uint64_t report = first_report(*t);
  REQUIRE(report > 0);
  // Held at the deadlock report, read from the trace: bits 32 and 33 of block 0's table (region 0).
  std::set<uint64_t> held;
  for (const auto& [key, h] : shared_held_bits(*t, report)) held.insert(std::get<2>(key));
  REQUIRE(held == std::set<uint64_t>{32, 33});
  // The scenario's own picture: --step report:0 --layout lanes,locks,source.
  const std::string scenario = scenario_viewer_options("09-tiny-lock-wavefronts", "simd-deadlock");
  REQUIRE(scenario.find("--step report:0") != std::string::npos);
  REQUIRE(scenario.find("--layout") != std::string::npos);
  struct Case {
    std::string what, options;
    bool in_view;  // the detail is in the window, not scrolled away
  };
  // The whole lecture layout gives Lock bits & flags too little height at 1280x720 for the table's
  // overview (4 px a bit, the smallest) and the detail: the window scrolls there.
  for (const std::string size : {"1920x1080", "1280x720"})
    for (const Case& k : {Case{"the scenario's picture", scenario, true},
                          Case{"the whole layout", "--step report:0", size == "1920x1080"}}) {
      SECTION(k.what + " at " + size) {
        Image img;
        Layout lay;
        const std::string name =
            "lecture_zoom_lab09_" + std::string(k.options == scenario ? "scenario_" : "all_") + size;
        lecture_export("lab09_simd_deadlock.trace", name, size, k.options, &img, &lay);
        REQUIRE(lay.cursor == report);
        const Cell& win = lay.at("window:locks");
        // The overview stays: all 1024 bits, small.
        for (uint64_t i = 0; i < 1024; ++i) {
          const Cell& c = lay.at("locks:0:" + std::to_string(i));
          CHECK(c.width() < 24);
        }
        // The detail: whole words, named by its label, the deadlock's bits 32 and 33 among them.
        const Cell& frame = lay.at("zoom:0");
        INFO("the detail: " << frame.what << " [" << frame.x0 << ", " << frame.y0 << ", " << frame.x1 << ", "
                            << frame.y1 << "] in the window [" << win.x0 << ", " << win.y0 << ", " << win.x1 << ", "
                            << win.y1 << "]");
        uint64_t lo = 0, hi = 0;
        REQUIRE(label_bits(frame.what, &lo, &hi));
        CHECK(lo % 32 == 0);
        CHECK(hi % 32 == 31);
        CHECK(lo <= 32);
        CHECK(hi >= 33);
        // ... chosen for the report: the word its spinning lanes poll (byte 4 of the table)
        CHECK(frame.what.find(": polled in report 0") != std::string::npos);
        std::set<uint64_t> want;
        for (uint64_t i = lo; i <= hi; ++i) want.insert(i);
        CHECK(zoom_bits(lay, 0) == want);
        for (uint64_t i : want) {
          const std::string id = "zoom:0:" + std::to_string(i);
          const Cell& c = lay.at(id);
          INFO(id << " [" << c.x0 << ", " << c.y0 << ", " << c.x1 << ", " << c.y1 << "] " << c.what);
          CHECK(c.width() >= 24);
          CHECK(c.height() >= 24);
          CHECK(c.x0 >= win.x0);
          CHECK(c.x1 <= win.x1);
          CHECK(c.what == (held.count(i) ? "held" : "free"));
          if (k.in_view) {
            CHECK(c.y0 >= win.y0);
            CHECK(c.y1 <= win.y1);
            CHECK(img.at(c.cx(), c.cy()) == (held.count(i) ? lp.lock_held : lp.lock_free));
          }
        }
        // Its words are outlined in the overview, in the frame's colour, as is the detail.
        const Cell& outline = lay.at("zoom-outline:0");
        for (uint64_t i : {lo, uint64_t(32), uint64_t(33), hi}) {
          const Cell& c = lay.at("locks:0:" + std::to_string(i));
          INFO("locks:0:" << i << " in the outline [" << outline.x0 << ", " << outline.y0 << ", " << outline.x1 << ", "
                          << outline.y1 << "]");
          CHECK(c.x0 >= outline.x0);
          CHECK(c.x1 <= outline.x1);
          CHECK(c.y0 >= outline.y0);
          CHECK(c.y1 <= outline.y1);
        }
        if (k.in_view) {
          CHECK(top_edge_is(img, outline, lp.zoom_frame));
          CHECK(top_edge_is(img, frame, lp.zoom_frame));
        }
        // The label is drawn whole, and no text is cut.
        const TextCheck tc = check_texts(kArt + "/" + name + ".json");
        INFO(tc.cut.size() << " of " << tc.texts << " texts cut:\n" << joined(tc.cut));
        CHECK(tc.cut.empty());
        CHECK(tc.drawn.count(frame.what.substr(0, frame.what.find(':'))));
        // The hist array (region 1) has no detail.
        CHECK(!lay.has("zoom:1"));
        CHECK(zoom_bits(lay, 1).empty());
      }
    }
  SECTION("the detail follows the cursor: the event's word, else the first held bit's, else the first word") {
    // The acquire of bit 33: the update that sets it (the event at the cursor wrote it).
    const tr::Launch& L = t->launches[0];
    uint64_t acquire = 0;
    for (size_t i = L.first_event; i < L.end_event && !acquire; ++i) {
      const tr::Event& e = t->event(i);
      const unsigned bytes = (e.aux & tr::kRegionBytesMask) >> tr::kRegionBytesShift;
      if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && !(e.aux & tr::kRegionSnapshot) &&
          (e.aux & tr::kRegionIdMask) == 0 && bytes && e.a <= 33 && 33 < e.a + 8 * bytes && (e.b >> (33 - e.a) & 1))
        acquire = i - L.first_event;
    }
    REQUIRE(acquire > 0);
    const struct {
      std::string step, why;
      uint64_t bit;  // a bit the detail must show
    } steps[] = {{std::to_string(acquire), "the event at the cursor", 33}, {"first", "no bit held", 0}};
    for (const auto& st : steps) {
      Image img;
      Layout lay;
      lecture_export("lab09_simd_deadlock.trace", "lecture_zoom_lab09_step_" + st.step, "1280x720",
                     "--layout lanes,locks,source --step " + st.step, &img, &lay);
      const Cell& frame = lay.at("zoom:0");
      INFO("--step " << st.step << ": " << frame.what);
      uint64_t lo = 0, hi = 0;
      REQUIRE(label_bits(frame.what, &lo, &hi));
      CHECK(lo <= st.bit);
      CHECK(hi >= st.bit);
      CHECK(frame.what.find(": " + st.why) != std::string::npos);
      CHECK(lay.at("zoom:0:" + std::to_string(st.bit)).width() >= 24);
    }
  }
  SECTION("without --lecture there is no detail") {
    const std::string json = kArt + "/lecture_zoom_lab09_default.json";
    Run r = viz(kTraces + "/lab09_simd_deadlock.trace --size 1280x720 --step report:0 --export " + kArt +
                    "/lecture_zoom_lab09_default.png --dump-layout " + json,
                kNoDisplay);
    REQUIRE(r.status == 0);
    Layout ld;
    REQUIRE(ld.load(json));
    CHECK(ld.has("locks:0:1023"));
    CHECK(zoom_cells(ld) == 0);
  }
}

TEST_CASE("lecture zoom: a lock-bits region of up to 64 bits gets no detail, a global table of 1024 one",
          "[lecture-zoom]") {
  // flagship: one lock word (32 bits, region 0); contents: 64 bits (region 2) below an array and flags.
  struct Case {
    std::string trace, step;
    int region;
    uint64_t bits;
  };
  for (const Case& k : {Case{"flagship.trace", "report:0", 0, 32}, Case{"contents.trace", "last", 2, 64}})
    for (const std::string size : {"1920x1080", "1280x720"}) {
      SECTION(k.trace + " at " + size) {
        Image img;
        Layout lay;
        const std::string name = "lecture_zoom_small_" + k.trace + "_" + size;
        lecture_export(k.trace, name, size, "--step " + k.step, &img, &lay);
        CHECK(lay.has("locks:" + std::to_string(k.region) + ":" + std::to_string(k.bits - 1)));
        CHECK(lay.at("locks:" + std::to_string(k.region) + ":0").width() >= 24);  // drawn large itself
        CHECK(zoom_cells(lay) == 0);
        uint64_t lo = 0, hi = 0;
        for (const std::string& text : check_texts(kArt + "/" + name + ".json").drawn) {
          INFO(text);
          CHECK(!label_bits(text, &lo, &hi));
        }
      }
    }
  SECTION("locks.trace's global table of 32 x 32 gets one") {
    Image img;
    Layout lay;
    lecture_export("locks.trace", "lecture_zoom_global", "1280x720", "--layout locks", &img, &lay);
    uint64_t lo = 0, hi = 0;
    REQUIRE(label_bits(lay.at("zoom:0").what, &lo, &hi));
    CHECK(zoom_bits(lay, 0).size() == hi - lo + 1);
    CHECK(lay.at("zoom:0:" + std::to_string(lo)).width() >= 24);
  }
}

// ==== a Wavefront figure: the grid fills the picture, with a colour key (--window wavefront) =======
//
// Lab 09's Needleman-Wunsch animations (labs/09-tiny-lock-wavefronts/scenarios.txt, "gif:" lines)
// export the Wavefront window alone. Before the grid took the window's room and had a key, its
// 65 x 65 score matrix spanned 81% of the shorter side at the gif lines' 560x600 in lecture style
// (61.6% of the frame's area; 455 px, two lines of controls above it) and 81% of 720 at 1280x720
// (37.1% of the frame, anchored left: an empty band of 687 px on the right; 45.8% without
// --lecture), with no key in the picture. The checks below ask for at least 85% of the shorter side.

namespace {

struct Box {
  float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
  void add(float a0, float b0, float a1, float b1) {
    x0 = std::min(x0, a0), y0 = std::min(y0, b0), x1 = std::max(x1, a1), y1 = std::max(y1, b1);
  }
  bool overlaps(float a0, float b0, float a1, float b1) const { return a0 < x1 && a1 > x0 && b0 < y1 && b1 > y0; }
};

// The --size of lab 09's "gif: NAME | ..." line: the size its slide figure is exported at.
std::string gif_line_size(const std::string& name) {
  std::ifstream f(std::string(VIZ_SOURCE_DIR) + "/labs/09-tiny-lock-wavefronts/scenarios.txt");
  REQUIRE(f);
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("gif:", 0) != 0 || line.find(" " + name + " ") == std::string::npos) continue;
    const size_t at = line.find("--size ");
    REQUIRE(at != std::string::npos);
    std::stringstream ss(line.substr(at + 7));
    std::string size;
    ss >> size;
    return size;
  }
  FAIL("no 'gif: " << name << "' line in lab 09's scenarios.txt");
  return "";
}

// The distance from c to the completion ramp (palette::heat), the largest channel difference.
int off_ramp(pal::Rgb c) {
  int best = 255;
  for (int i = 0; i <= 1000; ++i) {
    const pal::Rgb h = pal::heat(i / 1000.0);
    best = std::min(best, std::max({std::abs(h.r - c.r), std::abs(h.g - c.g), std::abs(h.b - c.b)}));
  }
  return best;
}

// Whether the picture has `want` within a pixel of the rectangle's left edge at its middle (the
// front's outline, 1 or 2 px wide, antialiased).
int max_channel_diff(pal::Rgb a, pal::Rgb b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

bool left_edge_is(const Image& img, const Cell& c, pal::Rgb want) {
  for (int x = int(c.x0) - 1; x <= int(c.x0) + 1; ++x)
    if (x >= 0 && x < img.w && near(img.at(x, c.cy()), want, 8)) return true;
  return false;
}

}  // namespace

TEST_CASE("wavefront figure: the grid fills the picture, a key of every cell state beside it, no text cut",
          "[wavefront-figure]") {
  const std::string gif_size = gif_line_size("nw-wavefront");
  CHECK(gif_line_size("nw-dataflow") == gif_size);
  struct Case {
    std::string trace, options;
    std::vector<std::string> states;  // the key's, one entry each
  };
  // 64 x 64 filled by one launch per anti-diagonal (127 launches: cells done by an earlier launch),
  // and 16 x 16 in one launch.
  const std::vector<Case> cases = {
      {"wavefront_figure.trace", "--launch 60 --step last", {"done", "front", "earlier", "pending"}},
      {"wavefront.trace", "--step 50%", {"done", "front", "pending"}}};
  for (const Case& k : cases)
    for (const std::string& size : {gif_size, std::string("1280x720")})
      for (const bool lecture : {true, false}) {
        SECTION(k.trace + " at " + size + (lecture ? " --lecture" : "")) {
          const std::string name = "wavefront_figure_" + k.trace + "_" + size + (lecture ? "_lecture" : "");
          const std::string png = kArt + "/" + name + ".png", json = kArt + "/" + name + ".json";
          Run r = viz(kTraces + "/" + k.trace + (lecture ? " --lecture --relative-to " VIZ_SOURCE_DIR : "") +
                          " --window wavefront --size " + size + " " + k.options + " --export " + png +
                          " --dump-layout " + json,
                      kNoDisplay);
          REQUIRE(r.status == 0);
          Image img;
          Layout lay;
          REQUIRE(img.load(png));
          REQUIRE(lay.load(json));
          // The grid: how much of the picture it spans.
          Box grid, all;
          std::map<std::string, std::vector<const Cell*>> by_state;
          for (const auto& [id, c] : lay.cells)
            if (id.rfind("wavefront:", 0) == 0) {
              grid.add(c.x0, c.y0, c.x1, c.y1);
              by_state[c.what].push_back(&c);
            }
          REQUIRE(!by_state.empty());
          const float gw = grid.x1 - grid.x0, gh = grid.y1 - grid.y0;
          const float shorter = float(std::min(img.w, img.h));
          const double share = double(gw) * gh / (double(img.w) * img.h);
          INFO("grid " << gw << " x " << gh << " in " << img.w << " x " << img.h << ": " << 100 * share
                       << "% of the picture, " << 100 * std::min(gw, gh) / shorter << "% of its shorter side");
          CHECK(std::min(gw, gh) >= 0.85f * shorter);
          CHECK(share >= 0.45);
          CHECK(grid.x0 >= 0);
          CHECK(grid.y0 >= 0);
          CHECK(grid.x1 <= img.w);
          CHECK(grid.y1 <= img.h);
          // The key: one entry per state, none on the grid, in the picture.
          std::set<std::string> states;
          for (const auto& [id, c] : lay.cells) {
            if (id.rfind("wavefront-key:", 0) != 0) continue;
            states.insert(id.substr(14));
            INFO(id);
            CHECK(!grid.overlaps(c.x0, c.y0, c.x1, c.y1));
            CHECK(c.x0 >= 0);
            CHECK(c.y0 >= 0);
            CHECK(c.x1 <= img.w);
            CHECK(c.y1 <= img.h);
            all.add(c.x0, c.y0, c.x1, c.y1);
          }
          CHECK(states == std::set<std::string>(k.states.begin(), k.states.end()));
          // Its labels are drawn, whole, and none on the grid: no text of the window is.
          const TextCheck t = check_texts(json);
          INFO(t.cut.size() << " of " << t.texts << " texts cut:\n" << joined(t.cut));
          CHECK(t.cut.empty());
          std::ifstream f(json);
          const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
          REQUIRE(!j.is_discarded());
          for (const nlohmann::json& c : j["texts"]) {
            const auto& rc = c["rect"];
            const std::string what = c["what"].get<std::string>();
            INFO("text '" << what << "' " << rc.dump());
            CHECK(!grid.overlaps(rc[0].get<float>(), rc[1].get<float>(), rc[2].get<float>(), rc[3].get<float>()));
            if (what != "Wavefront")
              all.add(rc[0].get<float>(), rc[1].get<float>(), rc[2].get<float>(), rc[3].get<float>());
          }
          for (const std::string& s : k.states) CHECK(t.drawn.count(lay.at("wavefront-key:" + s).what));
          // No large empty band: the grid, the key and the controls together leave at most a fifth
          // of the picture empty on any side (the old layout left 53% of 1280 on the right), the
          // same on the left as on the right (they are centred).
          all.add(grid.x0, grid.y0, grid.x1, grid.y1);
          INFO("drawn from (" << all.x0 << ", " << all.y0 << ") to (" << all.x1 << ", " << all.y1 << ")");
          CHECK(all.x0 <= 0.2f * img.w);
          CHECK(img.w - all.x1 <= 0.2f * img.w);
          CHECK(all.y0 <= 0.2f * img.h);
          CHECK(img.h - all.y1 <= 0.2f * img.h);
          CHECK(std::abs(all.x0 - (img.w - all.x1)) <= 0.05f * img.w);
          // The key's colours are the cells': read back from the picture.
          const pal::Palette& p = lecture ? pal::kLecturePalette : pal::kDefaultPalette;
          CHECK(centre(img, lay, "wavefront-key:pending") == p.heat_pending);
          for (const Cell* c : by_state["pending"]) {
            CHECK(img.at(c->cx(), c->cy()) == p.heat_pending);
            break;  // (each cell is checked by [offscreen]; one is enough here)
          }
          if (by_state.count("earlier")) {
            CHECK(centre(img, lay, "wavefront-key:earlier") == p.heat_earlier);
            CHECK(img.at(by_state["earlier"][0]->cx(), by_state["earlier"][0]->cy()) == p.heat_earlier);
          }
          for (int i = 0; i < 15; ++i) {
            const std::string id = "wavefront-ramp:" + std::to_string(i);
            CHECK(centre(img, lay, id) == pal::heat((i + 0.5) / 15));
          }
          int off = 0;
          for (const std::string s : {"done", "front"})
            for (const Cell* c : by_state[s]) off += off_ramp(img.at(c->cx(), c->cy())) > 2;
          CHECK(off == 0);  // every done cell is a colour of the key's ramp
          REQUIRE(!by_state["front"].empty());
          CHECK(left_edge_is(img, lay.at("wavefront-key:front"), p.heat_front));
          CHECK(left_edge_is(img, *by_state["front"][0], p.heat_front));
        }
      }
}

#ifdef SYNCLAB_VIZ_GIFLIB
TEST_CASE("wavefront figure: the GIF at the gif lines' options has the key in every frame, the grid filling it",
          "[wavefront-figure]") {
  const std::string size = gif_line_size("nw-wavefront");
  for (const std::string& opts : {std::string("--all-launches"), std::string("--launch 100")}) {
    SECTION("the 64 x 64 wavefront of launches, " + opts) {
      const bool all = opts == "--all-launches";
      const std::string base = kArt + "/wavefront_figure_gif" + (all ? "_all" : "_100");
      // The layout of the last frame (the GIF's frames all have the same).
      const std::string last = all ? "--launch 126 --step last" : "--launch 100 --step last";
      Run rl = viz(kTraces +
                       "/wavefront_figure.trace --lecture --relative-to " VIZ_SOURCE_DIR " --window wavefront --size " +
                       size + " " + last + " --export " + base + ".png --dump-layout " + base + ".json",
                   kNoDisplay);
      REQUIRE(rl.status == 0);
      Layout lay;
      REQUIRE(lay.load(base + ".json"));
      Run r = viz(kTraces + "/wavefront_figure.trace --lecture --relative-to " VIZ_SOURCE_DIR " " + opts +
                      " --window wavefront --size " + size + " --frames 12 --fps 10 --export " + base + ".gif",
                  kNoDisplay);
      REQUIRE(r.status == 0);
      int e = 0;
      GifFileType* g = DGifOpenFileName((base + ".gif").c_str(), &e);
      REQUIRE(g);
      REQUIRE(DGifSlurp(g) == GIF_OK);
      CHECK(std::to_string(g->SWidth) + "x" + std::to_string(g->SHeight) == size);
      REQUIRE(g->ImageCount == 12);
      Box grid;
      for (const auto& [id, c] : lay.cells)
        if (id.rfind("wavefront:", 0) == 0) grid.add(c.x0, c.y0, c.x1, c.y1);
      CHECK(std::min(grid.x1 - grid.x0, grid.y1 - grid.y0) >= 0.85f * float(std::min(g->SWidth, g->SHeight)));
      std::vector<pal::Rgb> screen(size_t(g->SWidth) * size_t(g->SHeight), pal::Rgb{0, 0, 0});
      for (int i = 0; i < g->ImageCount; ++i) {
        const SavedImage& im = g->SavedImages[i];
        const GifImageDesc& d = im.ImageDesc;
        const ColorMapObject* map = d.ColorMap ? d.ColorMap : g->SColorMap;
        REQUIRE(map);
        for (int y = 0; y < d.Height; ++y)
          for (int x = 0; x < d.Width; ++x) {
            const GifColorType c = map->Colors[im.RasterBits[size_t(y) * size_t(d.Width) + size_t(x)]];
            screen[size_t(d.Top + y) * size_t(g->SWidth) + size_t(d.Left + x)] = {c.Red, c.Green, c.Blue};
          }
        auto px = [&](const Cell& c) { return screen[size_t(c.cy()) * size_t(g->SWidth) + size_t(c.cx())]; };
        INFO("frame " << i);
        CHECK(px(lay.at("wavefront-key:pending")) == pal::kLecturePalette.heat_pending);
        CHECK(px(lay.at("wavefront-key:earlier")) == pal::kLecturePalette.heat_earlier);
        CHECK(max_channel_diff(px(lay.at("wavefront-ramp:0")), pal::heat(0.5 / 15)) <= 8);
        CHECK(max_channel_diff(px(lay.at("wavefront-ramp:14")), pal::heat(14.5 / 15)) <= 8);
        if (i == 0) CHECK(px(lay.at("wavefront:0:63:63")) == pal::kLecturePalette.heat_pending);
      }
      DGifCloseFile(g, &e);
    }
  }
}
#endif
