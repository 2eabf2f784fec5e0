// Frame-time benchmark of synclab-viz (viz/app): how long it takes to build one frame of the
// whole window layout (ImGui::NewFrame .. ImGui::Render, including the model queries the windows
// make) for a 1-million-event trace, offscreen. Results: bench/results/viz_app.md.
//
//   viz_app_bench [--events N] [--frames N] [--size WxH] [--dir DIR] [--keep] [--trace FILE]
//
// The trace is synthetic, written with synclab::trace::Writer and shaped like the simulator's:
// 64 blocks x 4 warps take turns (round robin); they compute (ALU steps), load (a MemAccess per
// lane), store into a 64x64 "matrix" region (MemAccess + RegionUpdate per lane), take and release
// bits of a 32x32 "lock-bits" region (odd warps first spin a few iterations re-reading the lock
// word), and meet at block barriers every 16 rounds; a report sits in the middle. --trace FILE
// times an existing trace instead.
//
// Scenarios, each over --frames frames after 10 warm-up frames (1600x900, the full layout):
//   still     the cursor in the middle of the launch, unchanged (a paused viewer redrawing)
//   playing   the cursor moving forward 1..50 events per frame from the middle (playback)
//   scrubbing a random cursor every frame (dragging the scrub slider across the launch)
//   overview  the middle cursor with the timeline zoomed out to the whole launch
// and, at the middle cursor, each window alone, full-frame (--window): where the time goes.
// "build" is NewFrame .. Render on the CPU (the goal: <= 8 ms); "draw" is rendering the draw
// lists with OpenGL and waiting for it (Mesa llvmpipe here: software rendering, for information).
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <synclab/trace_writer.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app.h"
#include "renderer.h"

using namespace synclab;
using namespace synclab::viz;
using namespace synclab::viz::app;
using synclab::trace::Event;
using synclab::trace::EventKind;
using Clock = std::chrono::steady_clock;

namespace {

Event ev(uint64_t time, uint32_t warp, EventKind kind, uint8_t lane, uint16_t aux, uint64_t a, uint64_t b) {
  Event e{};
  e.time = time;
  e.warp = warp;
  e.kind = uint8_t(kind);
  e.lane = lane;
  e.aux = aux;
  e.a = a;
  e.b = b;
  return e;
}

constexpr uint32_t kBlocks = 64, kWpb = 4, kWarps = kBlocks * kWpb;
constexpr uint64_t kMatrix = 0x10000000, kLocks = 0x20000000, kData = 0x30000000;

// Lines of the fake kernel source, by pc (the generator uses pcs 0..15).
const uint32_t kLines[16] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};

bool write_trace(const std::string& path, const std::string& source, uint64_t target, std::string* err) {
  {
    std::ofstream src(source);
    src << "// synthetic kernel source for the viz_app benchmark\n";
    for (int i = 2; i <= 40; ++i) src << "  int line" << i << " = " << i << ";  // filler line " << i << "\n";
  }
  trace::Writer w;
  trace::WriterOptions opt;
  opt.size_limit = 1ull << 34;
  nlohmann::json header = {{"program", "viz_app_bench"},
                           {"backend", "sim"},
                           {"model", "its"},
                           {"scheduler", "rr"},
                           {"seed", 1},
                           {"time_unit", "warp step"},
                           {"device", {{"profile", "teaching"}, {"name", "bench"}}}};
  if (!w.open(path, header, false, opt, err)) return false;
  w.region(trace::region_json(0, "grid", "matrix", kMatrix, 64 * 64 * 4, 32, {64, 64}));
  w.region(trace::region_json(1, "locks", "lock-bits", kLocks, 128, 1, {32, 32}));
  std::vector<uint32_t> lines(kLines, kLines + 16), files(16, 0);
  w.kernel({{"name", "bench_kernel"},
            {"display", "bench_kernel(int*, unsigned*)"},
            {"launch", 0},
            {"grid", {kBlocks, 1, 1}},
            {"block", {kWpb * 32, 1, 1}},
            {"warps_per_block", kWpb},
            {"files", {source}},
            {"functions",
             {{{"name", "bench_kernel"},
               {"display", "bench_kernel(int*, unsigned*)"},
               {"lines", lines},
               {"files", files}}}}});
  uint64_t n = 0, time = 0;
  auto put = [&](const Event& e) {
    w.event(e);
    ++n;
  };
  // A warp step: its WarpStep at the next time; the events of its instruction follow with that time.
  auto step = [&](uint32_t warp, uint32_t mask, uint32_t pc, uint16_t cls) {
    ++time;
    put(ev(time, warp, EventKind::WarpStep, trace::kAllLanes, cls, uint64_t(mask) | (uint64_t(pc) << 32),
           kLines[pc & 15]));
  };
  put(ev(0, 0, EventKind::KernelBegin, trace::kAllLanes, 0, 0, kWarps));
  std::vector<uint32_t> arrived(kBlocks, 0);
  bool reported = false;
  uint32_t round = 0;
  std::mt19937 rng(7);
  while (n < target) {
    for (uint32_t wp = 0; wp < kWarps && n < target; ++wp) {
      const uint32_t block = wp / kWpb;
      const uint32_t phase = round % 16;
      const uint32_t full = 0xffffffffu;
      if (phase < 3) {  // compute; odd warps diverged in phase 1
        step(wp, (phase == 1 && (wp & 1)) ? 0x0000ffffu : full, phase, 0);
      } else if (phase == 3) {  // load
        step(wp, full, 3, 1);
        for (uint8_t l = 0; l < 32; ++l)
          put(ev(time, wp, EventKind::MemAccess, l, uint16_t(2 << trace::kAuxSizeShift), kData + (wp * 32 + l) * 4, l));
      } else if (phase == 4) {  // store a matrix row piece: 32 cells
        const uint32_t base = ((round / 16) * kWarps + wp) * 32 % 4096;
        step(wp, full, 4, 2);
        for (uint8_t l = 0; l < 32; ++l) {
          const uint64_t cell = (base + l) % 4096;
          put(ev(time, wp, EventKind::MemAccess, l, uint16_t(trace::kAuxWrite | (2 << trace::kAuxSizeShift)),
                 kMatrix + cell * 4, round));
          put(ev(time, wp, EventKind::RegionUpdate, l, 0, cell, round + 1));
        }
      } else if (phase >= 5 && phase <= 8 && (wp & 1)) {  // odd warps spin: load lock word, branch back
        step(wp, 0x1u, 5, 1);
        put(ev(time, wp, EventKind::MemAccess, 0, uint16_t(2 << trace::kAuxSizeShift), kLocks + (wp % 32) * 4, 1));
        step(wp, 0x1u, 6, 4);
      } else if (phase == 9) {  // take lock bits: lane l of warp w takes bit (w * 32 + l) % 1024 (8 lanes)
        step(wp, 0xffu, 7, 3);
        for (uint8_t l = 0; l < 8; ++l) {
          const uint32_t bit = (wp * 32 + l) % 1024;
          put(ev(time, wp, EventKind::Atomic, l, uint16_t(3 << trace::kAuxSizeShift), kLocks + bit / 8,
                 0 | (1ull << 32)));
          put(ev(time, wp, EventKind::RegionUpdate, l, 1, bit, 1));
        }
      } else if (phase == 10 || phase == 11) {  // critical section
        step(wp, 0xffu, 8 + (phase - 10), 2);
      } else if (phase == 12) {  // release
        step(wp, 0xffu, 10, 3);
        for (uint8_t l = 0; l < 8; ++l) {
          const uint32_t bit = (wp * 32 + l) % 1024;
          put(ev(time, wp, EventKind::Atomic, l, uint16_t(3 << trace::kAuxSizeShift), kLocks + bit / 8, 1));
          put(ev(time, wp, EventKind::RegionUpdate, l, 1, bit, 0));
        }
      } else if (phase == 15) {  // block barrier
        step(wp, full, 11, 5);
        put(ev(time, wp, EventKind::BarrierArrive, trace::kAllLanes, 0, full, block));
        if (++arrived[block] == kWpb) {
          arrived[block] = 0;
          put(ev(time, block * kWpb, EventKind::BarrierRelease, trace::kAllLanes, 0, kWpb * 32, block));
        }
      } else {
        step(wp, full, 12 + (rng() % 3), 0);
      }
      if (!reported && n >= target / 2) {
        reported = true;
        const uint32_t id = w.report({{"kind", "race"},
                                      {"severity", "warning"},
                                      {"title", "benchmark report in the middle"},
                                      {"text", "synthetic"},
                                      {"launch", 0},
                                      {"parties", {{{"block", block}, {"warp", wp}, {"lane", 3}, {"line", 14}}}}});
        put(ev(time, wp, EventKind::Report, 3, 6, id, 14));
      }
    }
    ++round;
  }
  for (uint32_t wp = 0; wp < kWarps; ++wp) put(ev(time, wp, EventKind::LaneExit, trace::kAllLanes, 0, 0xffffffffu, 0));
  put(ev(time, 0, EventKind::KernelEnd, trace::kAllLanes, 0, 0, 0));
  w.close();
  return true;
}

struct Stats {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};
Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  auto q = [&](double p) { return v[std::min(v.size() - 1, size_t(p * (v.size() - 1) + 0.5))]; };
  s.p50 = q(0.5);
  s.p95 = q(0.95);
  s.p99 = q(0.99);
  s.max = v.back();
  return s;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Wall-clock stats, then the thread's CPU time (what the frame costs without the time slices a
// loaded machine takes away).
void row(const char* name, const Stats& s, const Stats& cpu) {
  std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f / %.2f |\n", name, s.mean, s.p50, s.p95, s.p99, s.max,
              cpu.mean, cpu.p99);
}

// One frame's build: wall ms into *wall, thread CPU ms into *cpu.
void timed(OffscreenRenderer& r, App& app, std::vector<double>* wall, std::vector<double>* cpu) {
  const double c0 = thread_cpu_ms();
  wall->push_back(r.build_frame_ms(app));
  cpu->push_back(thread_cpu_ms() - c0);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = 1000000;
  int frames = 300, width = 1600, height = 900;
  std::string dir = "/tmp", trace_path;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "viz_app_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--events")
      events = std::strtoull(next(), nullptr, 10);
    else if (a == "--frames")
      frames = std::atoi(next());
    else if (a == "--size") {
      if (std::sscanf(next(), "%dx%d", &width, &height) != 2) return 2;
    } else if (a == "--dir")
      dir = next();
    else if (a == "--trace")
      trace_path = next();
    else if (a == "--keep")
      keep = true;
    else {
      std::fprintf(stderr,
                   "usage: viz_app_bench [--events N] [--frames N] [--size WxH] [--dir DIR] [--keep] [--trace FILE]\n");
      return 2;
    }
  }
  std::string err;
  const bool synthetic = trace_path.empty();
  if (synthetic) {
    trace_path = dir + "/viz_app_bench.trace";
    const auto t0 = Clock::now();
    if (!write_trace(trace_path, dir + "/viz_app_bench_kernel.cu", events, &err)) {
      std::fprintf(stderr, "viz_app_bench: %s\n", err.c_str());
      return 1;
    }
    std::printf("wrote %s (%" PRIu64 " events requested) in %.2f s\n", trace_path.c_str(), events, ms_since(t0) / 1000);
  }
  auto t_open = Clock::now();
  std::unique_ptr<Model> model = Model::open(trace_path, &err);
  if (!model) {
    std::fprintf(stderr, "viz_app_bench: %s\n", err.c_str());
    return 1;
  }
  const double open_ms = ms_since(t_open);
  AppOptions ao;
  ao.interactive = false;
  App app(std::move(model), ao);
  std::string note;
  auto r = OffscreenRenderer::create(width, height, ao.font_size, OffscreenBackend::Auto, &err, &note);
  if (!r) {
    std::fprintf(stderr, "viz_app_bench: %s\n", err.c_str());
    return 1;
  }
  const LaunchInfo& L = app.launch_info();
  const uint64_t mid = L.steps / 2;
  std::printf("trace: %" PRIu64 " events in launch 0 (%" PRIu64
              " in the file), %u warps, %zu spans; Model::open %.0f ms\n",
              L.steps, app.model().total_events(), L.warps, app.model().spans(0).size(), open_ms);
  std::printf("offscreen: %s, %s; %dx%d; %d frames per scenario\n\n", r->context().kind(),
              r->context().renderer().c_str(), width, height, frames);

  std::printf(
      "| frame build, ms (NewFrame .. Render) | mean | p50 | p95 | p99 | max | CPU mean / p99 |\n"
      "|---|---|---|---|---|---|---|\n");
  std::vector<double> b_still, b_play, b_scrub, c_still, c_play, c_scrub;
  // still
  app.seek(mid);
  for (int i = 0; i < 10; ++i) r->build_frame_ms(app);
  for (int i = 0; i < frames; ++i) timed(*r, app, &b_still, &c_still);
  const size_t vtx = size_t(ImGui::GetDrawData()->TotalVtxCount);
  row("still: cursor in the middle", stats(b_still), stats(c_still));
  // playing
  std::mt19937_64 rng(42);
  app.seek(mid);
  for (int i = 0; i < frames; ++i) {
    app.step(int64_t(1 + rng() % 50));
    timed(*r, app, &b_play, &c_play);
  }
  row("playing: +1..50 events per frame", stats(b_play), stats(c_play));
  // scrubbing
  for (int i = 0; i < frames; ++i) {
    app.seek(rng() % L.steps);
    timed(*r, app, &b_scrub, &c_scrub);
  }
  row("scrubbing: a random cursor per frame", stats(b_scrub), stats(c_scrub));
  // The timeline zoomed out over the whole launch (every warp's steps bucketed per pixel pair).
  std::vector<double> b_over, c_over;
  app.seek(mid);
  app.timeline_ui.follow = false;
  app.timeline_ui.t0 = 0;
  app.timeline_ui.t1 = double(L.last_time - L.first_time) + 1;
  for (int i = 0; i < 10; ++i) r->build_frame_ms(app);
  for (int i = 0; i < frames; ++i) timed(*r, app, &b_over, &c_over);
  row("still, timeline zoomed out to the whole launch", stats(b_over), stats(c_over));
  app.timeline_ui.launch = -1;  // back to the default zoom
  app.timeline_ui.follow = true;

  // Drawing (llvmpipe) of the middle frame, for information.
  app.seek(mid);
  std::vector<double> d;
  for (int i = 0; i < std::min(frames, 60); ++i) {
    r->build_frame_ms(app);
    const auto t0 = Clock::now();
    r->render(app, 1);
    gl_finish();
    d.push_back(ms_since(t0));
  }
  Stats ds = stats(d);
  std::printf("\nbuild + draw with OpenGL (%s): mean %.2f ms, p95 %.2f ms; %zu vertices in the middle frame\n",
              r->context().kind(), ds.mean, ds.p95, vtx);

  // Each window alone, full-frame, at the middle cursor.
  std::printf(
      "\n| one window, full-frame, ms | mean | p50 | p95 | p99 | max | CPU mean / p99 |\n"
      "|---|---|---|---|---|---|---|\n");
  for (WindowId w : {WindowId::Lanes, WindowId::Locks, WindowId::Wavefront, WindowId::Timeline, WindowId::Source,
                     WindowId::Reports, WindowId::Playback}) {
    app.options.only_window = w;
    app.seek(mid);
    std::vector<double> v, c;
    for (int i = 0; i < 10; ++i) r->build_frame_ms(app);
    for (int i = 0; i < frames / 2; ++i) timed(*r, app, &v, &c);
    row(window_key(w), stats(v), stats(c));
  }
  app.options.only_window.reset();
  if (synthetic && !keep) {
    std::remove(trace_path.c_str());
    std::remove((dir + "/viz_app_bench_kernel.cu").c_str());
  }
  return 0;
}
