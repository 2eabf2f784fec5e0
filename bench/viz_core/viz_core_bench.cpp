// Benchmark of the visualizer's trace model (viz/core): open time, memory per event, and the cost
// of one frame (the state at a random cursor plus the timeline queries of the visible window).
// Results: bench/results/viz_core.md.
//
//   viz_core_bench [--events N] [--frame-events N] [--dir DIR] [--frames N] [--fresh N]
//                  [--checkpoint-bytes B] [--keep]
//   viz_core_bench [--checkpoint-bytes B] --open TRACE   one Model::open of TRACE, as synclab-viz opens it
//
// --checkpoint-bytes B: ModelOptions::checkpoint_bytes_per_event for every open (default: the
// model's).
//
// --fresh N (default 5): after the in-process measurements, each large trace is also opened N
// times by a new process of this program (--open), the two traces in turns: the time a viewer
// started on the trace waits, with none of the memory a process that opened traces before has
// kept or given back.
//
// Traces are synthetic, written with synclab::trace::Writer, shaped like the simulator's: 64
// blocks x 4 warps; warps compute (ALU steps), load (a MemAccess per lane), store into a 64x64
// matrix region (MemAccess + RegionUpdate per lane), take lock bits of a 32x32 lock-bits region
// (atomicCAS; the losers spin re-reading the lock), meet at block barriers, and exit at the end.
// A second, "steps only" trace (every event a WarpStep, mostly converged warps) is the worst case
// for the per-step index.
#include "viz/core/huge_pages.h"
#include "viz/core/model.h"

#include <synclab/trace_writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace synclab;
using synclab::trace::Event;
using synclab::trace::EventKind;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// kB of anonymous / file-backed resident memory (/proc/self/status).
void rss(long* anon_kb, long* file_kb) {
  std::ifstream in("/proc/self/status");
  std::string line;
  *anon_kb = *file_kb = 0;
  while (std::getline(in, line)) {
    if (line.rfind("RssAnon:", 0) == 0) *anon_kb = std::atol(line.c_str() + 8);
    if (line.rfind("RssFile:", 0) == 0) *file_kb = std::atol(line.c_str() + 8);
  }
}

Event ev(uint64_t time, uint32_t warp, EventKind kind, uint8_t lane, uint16_t aux, uint64_t a, uint64_t b) {
  Event e{};
  e.time = time;
  e.warp = warp;
  e.kind = static_cast<uint8_t>(kind);
  e.lane = lane;
  e.aux = aux;
  e.a = a;
  e.b = b;
  return e;
}

constexpr uint32_t kBlocks = 64, kWpb = 4, kWarps = kBlocks * kWpb;
constexpr uint64_t kLockBase = 0x10000, kGridBase = 0x20000, kDataBase = 0x40000;

struct Gen {
  trace::Writer w;
  uint64_t events = 0, time = 0;
  void put(const Event& e) {
    w.event(e);
    ++events;
  }
  void step(uint32_t warp, uint32_t mask, uint32_t pc, uint32_t line, trace::InstrClass cls) {
    put(ev(time++, warp, EventKind::WarpStep, 0xff, uint16_t(cls), uint64_t(mask) | (uint64_t(pc) << 32), line));
  }
};

// Simulator-like mix. Returns the number of events written.
uint64_t write_mixed(const std::string& path, uint64_t target) {
  Gen g;
  std::string err;
  nlohmann::json header = {{"program", "viz_core_bench"}, {"backend", "sim"}, {"model", "its"},
                           {"scheduler", "rr"},           {"seed", 1},        {"device", {{"name", "teaching"}}},
                           {"time_unit", "warp step"}};
  trace::WriterOptions opt;
  opt.size_limit = 1ull << 40;
  if (!g.w.open(path, header, false, opt, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(1);
  }
  g.w.region(trace::region_json(0, "locks", "lock-bits", kLockBase, 128, 1, {32, 32}));
  g.w.region(trace::region_json(1, "grid", "matrix", kGridBase, 64 * 64 * 4, 32, {64, 64}));
  std::vector<uint32_t> lines(64);
  for (uint32_t i = 0; i < 64; ++i) lines[i] = 10 + i / 2;
  g.w.kernel({{"name", "bench_kernel"},
              {"display", "bench_kernel(int*)"},
              {"launch", 0},
              {"grid", {kBlocks, 1, 1}},
              {"block", {128, 1, 1}},
              {"warps_per_block", kWpb},
              {"files", {"bench.cu"}},
              {"functions",
               {{{"name", "bench_kernel"},
                 {"display", "bench_kernel(int*)"},
                 {"lines", lines},
                 {"files", std::vector<uint32_t>(64, 0)}}}}});
  g.put(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, kWarps));
  std::mt19937_64 rng(12345);
  struct WarpSim {
    int phase = 0;  // 0 compute, 1 trying the lock, 2 holding it, 3 at barrier
    uint32_t pc = 0, iter = 0, hold = 0, lock = 0, spin_pc = 0;
  };
  std::vector<WarpSim> ws(kWarps);
  std::vector<uint8_t> lock_bits(1024, 0);
  std::vector<uint32_t> arrived(kBlocks, 0);
  uint32_t cell_cursor = 0;
  const uint64_t tail = 2 * kWarps + 1;  // the exits and the KernelEnd
  const uint64_t budget = target > tail + 200 ? target - tail - 200 : target;
  while (g.events < budget) {
    for (uint32_t warp = 0; warp < kWarps && g.events < budget; ++warp) {
      WarpSim& s = ws[warp];
      const uint32_t block = warp / kWpb;
      switch (s.phase) {
        case 0: {  // compute: ALU, loads, stores into the matrix
          const uint32_t r = s.iter++ % 16;
          s.pc = (s.pc + 1) % 40;
          if (r < 8) {
            g.step(warp, ~0u, s.pc, lines[s.pc], trace::InstrClass::Alu);
          } else if (r < 12) {
            g.step(warp, ~0u, s.pc, lines[s.pc], trace::InstrClass::Load);
            for (uint8_t l = 0; l < 32; ++l)
              g.put(
                  ev(g.time - 1, warp, EventKind::MemAccess, l, 2 << 4, kDataBase + 4 * (warp * 32 + l), rng() & 0xff));
          } else if (r < 14) {
            g.step(warp, ~0u, s.pc, lines[s.pc], trace::InstrClass::Store);
            for (uint8_t l = 0; l < 32; ++l) {
              const uint32_t cell = (cell_cursor++) % 4096;
              g.put(ev(g.time - 1, warp, EventKind::MemAccess, l, 0x8 | (2 << 4), kGridBase + 4 * cell, cell + 1));
              g.put(ev(g.time - 1, warp, EventKind::RegionUpdate, l, 1, cell, cell + 1));
            }
          } else if (r == 14 && rng() % 4 == 0) {
            s.phase = 1;
            s.lock = uint32_t(rng() % 1024);
            s.spin_pc = 50;
          } else if (r == 15 && s.iter % 256 == 15) {
            g.step(warp, ~0u, 45, 40, trace::InstrClass::Barrier);
            g.put(ev(g.time - 1, warp, EventKind::BarrierArrive, 0xff, 0, ~0u, block));
            s.phase = 3;
            if (++arrived[block] == kWpb) {
              arrived[block] = 0;
              g.put(ev(g.time - 1, block * kWpb, EventKind::BarrierRelease, 0xff, 0, 128, block));
              for (uint32_t k = 0; k < kWpb; ++k) ws[block * kWpb + k].phase = 0;
            }
          } else {
            g.step(warp, ~0u, s.pc, lines[s.pc], trace::InstrClass::Alu);
          }
          break;
        }
        case 1: {  // lane 0 tries the lock: CAS; losers re-read it in a loop (a spin)
          const uint64_t addr = kLockBase + s.lock / 8;
          if (s.spin_pc == 50) {
            g.step(warp, 1, 50, 60, trace::InstrClass::Atomic);
            const uint32_t old = lock_bits[s.lock];
            g.put(ev(g.time - 1, warp, EventKind::Atomic, 0, 0x8 | (2 << 4), addr, old | (uint64_t(1) << 32)));
            if (!old) {
              lock_bits[s.lock] = 1;
              g.put(ev(g.time - 1, warp, EventKind::RegionUpdate, 0, 0, s.lock, 1));
              s.phase = 2;
              s.hold = 6;
            } else {
              s.spin_pc = 51;
            }
          } else if (s.spin_pc == 51) {
            g.step(warp, 1, 51, 61, trace::InstrClass::Load);
            g.put(ev(g.time - 1, warp, EventKind::MemAccess, 0, 2 << 4, addr, lock_bits[s.lock]));
            s.spin_pc = 52;
          } else {
            g.step(warp, 1, 52, 61, trace::InstrClass::Branch);
            s.spin_pc = lock_bits[s.lock] ? 51 : 50;
          }
          break;
        }
        case 2: {  // critical section, then release
          if (s.hold-- > 0) {
            g.step(warp, 1, 55, 63, trace::InstrClass::Alu);
          } else {
            g.step(warp, 1, 56, 64, trace::InstrClass::Atomic);
            const uint64_t addr = kLockBase + s.lock / 8;
            g.put(ev(g.time - 1, warp, EventKind::Atomic, 0, 0x8 | (2 << 4), addr, 1));
            lock_bits[s.lock] = 0;
            g.put(ev(g.time - 1, warp, EventKind::RegionUpdate, 0, 0, s.lock, 0));
            s.phase = 0;
          }
          break;
        }
        default: break;  // waiting at the barrier
      }
    }
  }
  // Everybody leaves.
  for (uint32_t warp = 0; warp < kWarps; ++warp) {
    g.step(warp, ~0u, 63, 70, trace::InstrClass::Exit);
    g.put(ev(g.time - 1, warp, EventKind::LaneExit, 0xff, 0, ~0u, 0));
  }
  g.put(ev(g.time, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
  g.w.close();
  return g.events;
}

// Every event a WarpStep (a kernel of ALU instructions, no memory): the per-step index's worst case.
uint64_t write_steps_only(const std::string& path, uint64_t target) {
  Gen g;
  std::string err;
  nlohmann::json header = {{"program", "viz_core_bench_steps"}, {"backend", "sim"}};
  trace::WriterOptions opt;
  opt.size_limit = 1ull << 40;
  if (!g.w.open(path, header, false, opt, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(1);
  }
  g.w.kernel({{"name", "alu_kernel"},
              {"launch", 0},
              {"grid", {kBlocks, 1, 1}},
              {"block", {128, 1, 1}},
              {"warps_per_block", kWpb}});
  g.put(ev(0, 0, EventKind::KernelBegin, 0xff, 0, 0, kWarps));
  std::mt19937 rng(3);
  while (g.events + 1 < target) {
    const uint32_t warp = rng() % kWarps;
    const uint32_t r = rng() % 20;  // mostly converged, sometimes a diverged half
    const uint32_t mask = r == 0 ? 0x0000ffffu : r == 1 ? 0xffff0000u : 0xffffffffu;
    g.step(warp, mask, rng() % 100, 5, trace::InstrClass::Alu);
  }
  g.put(ev(g.time, 0, EventKind::KernelEnd, 0xff, 0, 0, 0));
  g.w.close();
  return g.events;
}

struct OpenResult {
  double seconds = 0;
  double anon_per_event = 0, accounted_per_event = 0;
  size_t checkpoints = 0, spans = 0;
  uint64_t events = 0;
};

viz::ModelOptions g_options;  // --checkpoint-bytes

OpenResult measure_open(const std::string& path, std::unique_ptr<viz::Model>* keep = nullptr,
                        const viz::ModelOptions& opt = g_options) {
  OpenResult r;
  malloc_trim(0);
  long a0, f0, a1, f1;
  rss(&a0, &f0);
  const auto t0 = Clock::now();
  std::string err;
  std::unique_ptr<viz::Model> m = viz::Model::open(path, &err, opt);
  r.seconds = seconds_since(t0);
  if (!m) {
    std::fprintf(stderr, "open failed: %s\n", err.c_str());
    std::exit(1);
  }
  malloc_trim(0);
  rss(&a1, &f1);
  r.events = m->total_events();
  r.anon_per_event = double(a1 - a0) * 1024.0 / double(r.events);
  r.accounted_per_event = double(m->memory_bytes()) / double(r.events);
  r.checkpoints = m->checkpoint_count(0);
  r.spans = m->spans(0).size();
  if (keep) *keep = std::move(m);
  return r;
}

struct FrameStats {
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
};

FrameStats stats(std::vector<double> v) {
  FrameStats s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean_ms = sum / double(v.size());
  s.p50_ms = v[v.size() / 2];
  s.p99_ms = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  s.max_ms = v.back();
  return s;
}

}  // namespace

// Opens `path` in a new process of this program (--open) and returns Model::open's seconds, or a
// negative number when the child failed.
double fresh_open(const std::string& exe, const std::string& path) {
  const std::string cmd = "'" + exe + "' --checkpoint-bytes " + std::to_string(g_options.checkpoint_bytes_per_event) +
                          " --open '" + path + "'";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  char line[512];
  double sec = -1;
  while (std::fgets(line, sizeof line, f))
    if (const char* at = std::strstr(line, "Model::open ")) sec = std::atof(at + std::strlen("Model::open "));
  return pclose(f) == 0 ? sec : -1;
}

int main(int argc, char** argv) {
  // As synclab-viz does (SYNCLAB_NO_HUGEPAGES=1 measures without).
  synclab::viz::restart_on_huge_pages(argv);
  uint64_t big = 10000000, small = 1000000;
  std::string dir = "/tmp";
  int frames = 400, fresh = 5;
  bool keep = false;
  std::string open_one;  // --open TRACE
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--events")
      big = std::stoull(next());
    else if (a == "--frame-events")
      small = std::stoull(next());
    else if (a == "--dir")
      dir = next();
    else if (a == "--frames")
      frames = std::stoi(next());
    else if (a == "--fresh")
      fresh = std::stoi(next());
    else if (a == "--checkpoint-bytes")
      g_options.checkpoint_bytes_per_event = std::stod(next());
    else if (a == "--keep")
      keep = true;
    else if (a == "--open")
      open_one = next();
    else {
      std::fprintf(stderr,
                   "usage: %s [--events N] [--frame-events N] [--dir DIR] [--frames N] [--fresh N]\n"
                   "          [--checkpoint-bytes B] [--keep]\n"
                   "       %s [--checkpoint-bytes B] --open TRACE\n",
                   argv[0], argv[0]);
      return 2;
    }
  }
  if (!open_one.empty()) {
    const OpenResult r = measure_open(open_one);
    std::printf("%s: %llu events: Model::open %.3f s; anonymous RSS growth %.2f B/event\n", open_one.c_str(),
                (unsigned long long)r.events, r.seconds, r.anon_per_event);
    return 0;
  }
  const std::string big_path = dir + "/viz_core_bench_big.trace";
  const std::string steps_path = dir + "/viz_core_bench_steps.trace";
  const std::string small_path = dir + "/viz_core_bench_small.trace";

  auto t0 = Clock::now();
  const uint64_t nb = write_mixed(big_path, big);
  std::printf("wrote %s: %llu events in %.2f s\n", big_path.c_str(), (unsigned long long)nb, seconds_since(t0));
  t0 = Clock::now();
  const uint64_t ns = write_steps_only(steps_path, big);
  std::printf("wrote %s: %llu events in %.2f s\n", steps_path.c_str(), (unsigned long long)ns, seconds_since(t0));
  const uint64_t nsm = write_mixed(small_path, small);
  std::printf("wrote %s: %llu events\n\n", small_path.c_str(), (unsigned long long)nsm);

  // ---- open and memory
  for (int rep = 0; rep < 2; ++rep) {  // the first run also warms the page cache
    const OpenResult r = measure_open(big_path);
    std::printf(
        "mixed %llu events: Model::open %.3f s; anonymous RSS growth %.2f B/event; model's own count %.2f "
        "B/event; %zu checkpoints, %zu spans\n",
        (unsigned long long)r.events, r.seconds, r.anon_per_event, r.accounted_per_event, r.checkpoints, r.spans);
  }
  for (const std::string& path : {big_path, steps_path}) {
    // where the time goes: the derived intervals alone, and the model without them
    std::string err;
    auto t = trace::load(path, &err);
    const auto a = Clock::now();
    const size_t n = trace::analyze(*t).size();
    std::printf("%s: trace::analyze alone (on one core): %.3f s (%zu intervals)\n", path.c_str(), seconds_since(a), n);
    viz::ModelOptions no_analysis = g_options;
    no_analysis.analysis.barrier_waits = no_analysis.analysis.spins = no_analysis.analysis.critical_sections = false;
    const OpenResult r = measure_open(path, nullptr, no_analysis);
    std::printf("  and Model::open without the analysis: %.3f s\n", r.seconds);
  }
  {
    std::unique_ptr<viz::Model> ms;
    const OpenResult r = measure_open(steps_path, &ms);
    std::printf(
        "steps-only %llu events: Model::open %.3f s; anonymous RSS growth %.2f B/event; model's own count "
        "%.2f B/event; %zu checkpoints\n",
        (unsigned long long)r.events, r.seconds, r.anon_per_event, r.accounted_per_event, r.checkpoints);
    // a seek in it: the state at a random cursor (the farthest replay from a checkpoint)
    std::mt19937_64 rng(7);
    viz::State st;
    std::vector<double> t;
    const uint64_t steps = ms->launches()[0].steps;
    for (int f = 0; f < frames; ++f) {
      const uint64_t c = rng() % steps;
      const auto a = Clock::now();
      ms->state_at(0, c, &st);
      t.push_back(seconds_since(a) * 1e3);
    }
    const FrameStats q = stats(t);
    std::printf("state_at in the steps-only trace (random cursor): mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f\n",
                q.mean_ms, q.p50_ms, q.p99_ms, q.max_ms);
  }

  // ---- each large trace opened by new processes, in turns
  if (fresh > 0) {
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
      std::fprintf(stderr, "cannot find this program's path (/proc/self/exe)\n");
      return 1;
    }
    exe[n] = 0;
    std::vector<double> tm, ts;
    for (int i = 0; i < fresh; ++i) {
      tm.push_back(fresh_open(exe, big_path));
      ts.push_back(fresh_open(exe, steps_path));
      if (tm.back() < 0 || ts.back() < 0) {
        std::fprintf(stderr, "a new process could not open the traces (%s --open ...)\n", exe);
        return 1;
      }
    }
    auto show = [&](const char* what, std::vector<double> v) {
      std::string all;
      for (double x : v) all += fmt::format("{}{:.2f}", all.empty() ? "" : " ", x);
      std::sort(v.begin(), v.end());
      std::printf("%s, a new process each time: Model::open median %.3f s, %.3f-%.3f s over %zu (%s)\n", what,
                  v[v.size() / 2], v.front(), v.back(), v.size(), all.c_str());
    };
    show("mixed", tm);
    show("steps-only", ts);
  }

  // ---- frames on the 1M-event trace
  std::unique_ptr<viz::Model> m;
  const OpenResult rs = measure_open(small_path, &m);
  std::printf("\nframe trace %llu events: open %.3f s, %zu checkpoints (every %.0f events on average)\n",
              (unsigned long long)rs.events, rs.seconds, rs.checkpoints,
              double(rs.events) / double(std::max<size_t>(rs.checkpoints, 1)));
  const viz::LaunchInfo& L = m->launches()[0];
  std::mt19937_64 rng(99);
  viz::State state;
  std::vector<uint32_t> idx;
  std::vector<viz::ActivityBucket> act;
  std::vector<double> t_state, t_timeline, t_frame, t_scrub;
  const uint64_t span_t = L.last_time - L.first_time + 1;
  const uint32_t visible_warps = 64, buckets = 1600;
  size_t sink = 0;
  for (int f = 0; f < frames; ++f) {
    const uint64_t c = rng() % L.steps;
    const auto a = Clock::now();
    m->state_at(0, c, &state);
    const double ts = seconds_since(a) * 1e3;
    // the timeline: a window of 5% of the launch around the cursor, 64 warp rows, 1600 pixels
    const auto b = Clock::now();
    const uint64_t t = m->time_of(0, c);
    const uint64_t w0 = t > span_t / 40 ? t - span_t / 40 : 0, w1 = t + span_t / 40;
    const uint32_t first_row = uint32_t(rng() % (kWarps - visible_warps + 1));
    for (uint32_t w = first_row; w < first_row + visible_warps; ++w) {
      m->spans_in(0, w, w0, w1, &idx);
      m->activity(0, w, w0, w1, buckets, &act);
      sink += idx.size() + act[buckets / 2].steps;
    }
    const double tt = seconds_since(b) * 1e3;
    t_state.push_back(ts);
    t_timeline.push_back(tt);
    t_frame.push_back(ts + tt);
  }
  // scrubbing: a Player moved by small random amounts (dragging the slider)
  viz::Player p(*m, 0);
  p.seek(L.steps / 2);
  for (int f = 0; f < frames; ++f) {
    const auto a = Clock::now();
    p.step(int64_t(rng() % 2001) - 1000);
    p.state(&state);
    t_scrub.push_back(seconds_since(a) * 1e3);
  }
  // the whole-launch overview (zoomed out): every warp, all time, 1600 buckets
  const auto o = Clock::now();
  for (uint32_t w = 0; w < L.warps; ++w) {
    m->spans_in(0, w, L.first_time, L.last_time, &idx);
    m->activity(0, w, L.first_time, L.last_time + 1, buckets, &act);
    sink += idx.size();
  }
  const double overview_ms = seconds_since(o) * 1e3;

  const FrameStats s1 = stats(t_state), s2 = stats(t_timeline), s3 = stats(t_frame), s4 = stats(t_scrub);
  std::printf("state_at (random cursor, %u warps, %zu region cells): mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f\n",
              L.warps, size_t(1024 + 4096), s1.mean_ms, s1.p50_ms, s1.p99_ms, s1.max_ms);
  std::printf("timeline (%u warp rows x %u buckets, spans + activity): mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f\n",
              visible_warps, buckets, s2.mean_ms, s2.p50_ms, s2.p99_ms, s2.max_ms);
  std::printf("frame (state + timeline): mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f\n", s3.mean_ms, s3.p50_ms,
              s3.p99_ms, s3.max_ms);
  std::printf("scrub (Player, +-1000 events, then state): mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f\n", s4.mean_ms,
              s4.p50_ms, s4.p99_ms, s4.max_ms);
  std::printf("overview (all %u warps, whole launch, %u buckets): %.3f ms\n", L.warps, buckets, overview_ms);
  std::printf("(%zu)\n", sink % 10);
  if (!keep) {
    std::remove(big_path.c_str());
    std::remove(steps_path.c_str());
    std::remove(small_path.c_str());
  }
  return 0;
}
