// Helpers for the viz core tests: recording traces from the test programs with the simulator,
// finding marker lines in their sources, a synthetic random trace, comparing states.
#pragma once

#include "viz/core/model.h"

#include "../../common/trace_test_util.h"

#include <synclab/catch.h>
#include <synclab/trace_writer.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace vt {

using namespace synclab::viz;
using synclab::trace::Event;
using synclab::trace::EventKind;
using tt::ev;
using tt::read_all;
using tt::write_all;

// Runs a simulator build of a test program with SYNCLAB_TRACE (and SYNCLAB_MODEL); returns the
// trace's path ("" when none was written) and the program's exit status in *status.
inline std::string record(const std::string& exe, const std::string& name, const std::string& model,
                          int* status = nullptr, const std::string& extra_env = "", const std::string& args = "") {
  mkdir(VIZ_TRACE_DIR, 0755);
  const std::string trace =
      std::string(VIZ_TRACE_DIR) + "/" + name + "-" + model + "-" + std::to_string(getpid()) + ".trace";
  const std::string log = trace + ".log";
  std::remove(trace.c_str());
  const std::string cmd = "env SYNCLAB_MODEL=" + model + " SYNCLAB_TRACE='" + trace + "' " + extra_env + " '" + exe +
                          "' " + args + " >'" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  if (status) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  struct stat st;
  return stat(trace.c_str(), &st) == 0 ? trace : std::string();
}

// Removes a recorded trace (and its log) when the test is done with it.
struct Recorded {
  std::string path;
  int status = -1;
  Recorded(const std::string& exe, const std::string& name, const std::string& model, const std::string& args = "",
           const std::string& extra_env = "") {
    path = record(exe, name, model, &status, extra_env, args);
  }
  ~Recorded() {
    if (!path.empty()) {
      std::remove(path.c_str());
      std::remove((path + ".log").c_str());
    }
  }
  std::string log() const {
    std::ifstream in(path + ".log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

// The model of a recorded trace; fails the test (with the reader's message) when it does not open.
inline std::unique_ptr<Model> open_ok(const std::string& path) {
  std::string err;
  std::unique_ptr<Model> m = Model::open(path, &err);
  INFO(err);
  REQUIRE(m);
  return m;
}

// The index in m.regions() of the region with this name, -1 when none has it.
inline int region_named(const Model& m, const std::string& name) {
  for (size_t i = 0; i < m.regions().size(); ++i)
    if (m.regions()[i].name == name) return int(i);
  return -1;
}

// The 1-based line of the source that contains marker (0 when none does).
inline uint32_t marker_line(const std::string& src, const std::string& marker) {
  std::ifstream in(src);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

inline std::string temp_path(const std::string& name) {
  mkdir(VIZ_TRACE_DIR, 0755);
  return std::string(VIZ_TRACE_DIR) + "/" + name + "-" + std::to_string(getpid()) + ".trace";
}

// A random (but well-formed) trace: `launches` launches of 2 blocks x 3 warps with lock bits,
// a matrix and flags, steps with random masks, barrier arrivals and releases, byte-wide lock
// updates, exits and reports. Events are in time order; as on the simulator, a step's WarpStep
// comes first and the events after it (of any warp) have its time.
// time0: the first event's time; time_step: how far each WarpStep moves the time (GPU traces
// count nanoseconds from a large origin, and a launch's times may span more than 2^32).
inline void write_synthetic(const std::string& path, uint64_t events_per_launch, uint32_t seed, int launches = 1,
                            uint64_t time0 = 0, uint64_t time_step = 1) {
  synclab::trace::Writer w;
  std::string err;
  nlohmann::json header = {{"program", "synthetic"}, {"backend", "sim"}, {"model", "its"},
                           {"scheduler", "random"},  {"seed", seed},     {"device", {{"name", "teaching"}}}};
  if (!w.open(path, header, false, {}, &err)) throw std::runtime_error(err);
  w.region(synclab::trace::region_json(0, "locks", "lock-bits", 0x1000, 8, 1, {64}));
  w.region(synclab::trace::region_json(1, "grid", "matrix", 0x2000, 64, 32, {4, 4}));
  w.region(synclab::trace::region_json(2, "ready", "flags", 0x3000, 32, 32, {8}));
  std::mt19937_64 rng(seed);
  auto rnd = [&](uint64_t n) { return n ? rng() % n : 0; };
  const uint32_t wpb = 3, blocks = 2, warps = wpb * blocks;
  uint64_t time = time0;
  for (int l = 0; l < launches; ++l) {
    nlohmann::json k = {{"name", "synthetic_kernel"},
                        {"launch", l},
                        {"grid", {blocks, 1, 1}},
                        {"block", {96, 1, 1}},
                        {"warps_per_block", wpb}};
    if (l == 0) {
      k["files"] = {"synthetic.cu"};
      k["functions"] = {{{"name", "synthetic_kernel"},
                         {"display", "synthetic_kernel()"},
                         {"lines", {1, 2, 3, 4, 5, 6, 7, 8}},
                         {"files", {0, 0, 0, 0, 0, 0, 0, 0}}}};
    }
    w.kernel(k);
    w.event(ev(time, 0, EventKind::KernelBegin, 0xff, 0, uint64_t(l), warps));
    std::vector<uint32_t> exited(warps, 0);
    std::vector<uint32_t> pc(warps, 0);
    for (uint64_t i = 0; i < events_per_launch; ++i) {
      const uint32_t warp = uint32_t(rnd(warps));
      const uint32_t live = ~exited[warp];
      const uint64_t r = rnd(100);
      if (r < 45 || live == 0) {
        // a step, sometimes a backward jump (a loop: spins happen when it only reads)
        const uint32_t mask = live ? (uint32_t(rng()) | 1u << __builtin_ctz(live)) & live : 0u;
        pc[warp] = rnd(4) == 0 ? 0 : (pc[warp] + 1) % 8;
        w.event(ev(time += time_step, warp, EventKind::WarpStep, 0xff, uint16_t(rnd(12)),
                   uint64_t(mask) | (uint64_t(pc[warp]) << 32), uint64_t(pc[warp] + 1)));
      } else if (r < 60) {
        const uint8_t lane = uint8_t(rnd(32));
        w.event(ev(time, warp, EventKind::MemAccess, lane, uint16_t((rnd(2) ? 0x8 : 0) | (2 << 4)), 0x1000 + 4 * rnd(4),
                   rng()));
      } else if (r < 72) {
        const uint8_t lane = uint8_t(rnd(32));
        const uint64_t which = rnd(3);
        if (which == 0) {
          const unsigned nbytes = unsigned(1 + rnd(4));
          const uint64_t byte = rnd(8 - nbytes + 1);
          w.event(ev(time, warp, EventKind::RegionUpdate, lane, uint16_t(0 | (nbytes << 8)), byte * 8,
                     rnd(2) ? 0 : rng() & ((1ull << (8 * nbytes)) - 1)));
        } else if (which == 1) {
          w.event(ev(time, warp, EventKind::RegionUpdate, lane, 1, rnd(16), rng() & 0xffff));
        } else {
          w.event(ev(time, warp, EventKind::RegionUpdate, lane, 2, rnd(8), rnd(2)));
        }
      } else if (r < 80) {
        if (live)
          w.event(ev(time, warp, EventKind::BarrierArrive, 0xff, uint16_t(rnd(2)), uint32_t(rng()) & live, warp / wpb));
      } else if (r < 86) {
        const uint32_t block = uint32_t(rnd(blocks));
        w.event(ev(time, block * wpb, EventKind::BarrierRelease, 0xff, uint16_t(rnd(2)), 32, block));
      } else if (r < 88) {
        const uint32_t mask = uint32_t(rng()) & uint32_t(rng()) & live;
        if (mask) {
          exited[warp] |= mask;
          w.event(ev(time, warp, EventKind::LaneExit, 0xff, 0, mask, 0));
        }
      } else if (r < 89) {
        nlohmann::json rep = {{"kind", "race"},
                              {"severity", "error"},
                              {"title", "a made-up race"},
                              {"text", "t"},
                              {"launch", l},
                              {"line", 3},
                              {"parties", {{{"block", warp / wpb}, {"warp", warp}, {"lane", 1}}}}};
        const uint32_t id = w.report(rep);
        w.event(ev(time, warp, EventKind::Report, 1, 6, id, 3));
      } else if (r < 92) {
        // a spin: a few iterations of "load the same flag, branch back"
        const uint32_t mask = live ? (uint32_t(rng()) | 1u << __builtin_ctz(live)) & live : 0u;
        const uint64_t iterations = 2 + rnd(5);
        // sometimes one of the spinning lanes holds a lock bit (it waits for a second lock)
        if (mask && rnd(2))
          w.event(ev(time, warp, EventKind::RegionUpdate, uint8_t(31 - __builtin_clz(mask)), 0, rnd(64), 1));
        for (uint64_t it = 0; it < iterations && mask; ++it) {
          w.event(ev(time += time_step, warp, EventKind::WarpStep, 0xff, 1, uint64_t(mask) | (10ull << 32), 9));
          w.event(ev(time, warp, EventKind::MemAccess, uint8_t(__builtin_ctz(mask)), uint16_t(2 << 4), 0x3000, 0));
          w.event(ev(time += time_step, warp, EventKind::WarpStep, 0xff, 4, uint64_t(mask) | (11ull << 32), 9));
        }
        pc[warp] = 0;
      } else {
        const uint8_t lane = uint8_t(rnd(32));
        const uint64_t v = rng() & 0xff;
        w.event(ev(time, warp, EventKind::Atomic, lane, uint16_t(0x8 | (2 << 4)), 0x1000,
                   v | ((rnd(2) ? v : v + 1) << 32)));
      }
    }
    w.event(ev(time, 0, EventKind::KernelEnd, 0xff, 0, uint64_t(l), 0));
  }
  w.close();
}

inline bool same_event(const Event& x, const Event& y) {
  return x.time == y.time && x.warp == y.warp && x.kind == y.kind && x.lane == y.lane && x.aux == y.aux && x.a == y.a &&
         x.b == y.b;
}

// Field-by-field comparison; returns "" or what differs first.
inline std::string diff_states(const State& a, const State& b) {
  std::ostringstream o;
  if (a.launch != b.launch || a.cursor != b.cursor || a.time != b.time || !same_event(a.event, b.event)) {
    o << "header differs: cursor " << a.cursor << " vs " << b.cursor;
    return o.str();
  }
  if (a.first_warp != b.first_warp || a.warps.size() != b.warps.size()) return "warp ranges differ";
  for (size_t i = 0; i < a.warps.size(); ++i) {
    const WarpView& x = a.warps[i];
    const WarpView& y = b.warps[i];
    for (int l = 0; l < 32; ++l)
      if (x.lanes[l] != y.lanes[l]) {
        o << "warp " << x.warp << " lane " << l << ": " << lane_state_name(x.lanes[l]) << " vs "
          << lane_state_name(y.lanes[l]);
        return o.str();
      }
    if (x.warp != y.warp || x.exists != y.exists || x.started != y.started || x.exited != y.exited ||
        x.at_barrier != y.at_barrier || x.spinning != y.spinning || x.critical != y.critical ||
        x.last_mask != y.last_mask || x.has_step != y.has_step || x.pc != y.pc || x.line != y.line ||
        x.function != y.function || x.file != y.file || x.instr_class != y.instr_class ||
        x.last_step_time != y.last_step_time || x.last_step_cursor != y.last_step_cursor ||
        x.last_event_cursor != y.last_event_cursor || (x.at_barrier && x.barrier != y.barrier)) {
      o << "warp " << x.warp << " fields differ";
      return o.str();
    }
  }
  if (a.regions.size() != b.regions.size()) return "region counts differ";
  for (size_t r = 0; r < a.regions.size(); ++r) {
    if (a.regions[r].cells.size() != b.regions[r].cells.size()) return "cell counts differ";
    for (size_t i = 0; i < a.regions[r].cells.size(); ++i) {
      const CellView& x = a.regions[r].cells[i];
      const CellView& y = b.regions[r].cells[i];
      if (x.value != y.value || x.writer_cursor != y.writer_cursor || x.writer_time != y.writer_time ||
          x.writer_warp != y.writer_warp || x.writer_lane != y.writer_lane || x.owner_lane != y.owner_lane ||
          x.owner_warp != y.owner_warp || x.owner_cursor != y.owner_cursor ||
          x.completion_cursor != y.completion_cursor || x.completion_time != y.completion_time) {
        o << "region " << r << " cell " << i << " differs";
        return o.str();
      }
    }
  }
  return "";
}

}  // namespace vt
