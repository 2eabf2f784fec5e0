// A hand-built trace whose barrier waits, spins and critical sections are known in advance
// (used by the analysis tests and, through make_sample_trace, by the synclab-trace tool tests).
#pragma once

#include "trace_test_util.h"

#include <synclab/trace_writer.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sample {

using namespace synclab::trace;
using tt::ev;
using tt::step;

inline constexpr uint64_t kFlag = 0x2000, kLockWord = 0x3000;

// Launch 0 of "lock_kernel": grid 2 blocks of 64 threads, 2 warps per block (warps 0,1 = block 0,
// warps 2,3 = block 1). Region 0 "locks" is lock-bits, region 1 "data" an array.
//
// Known intervals (times are simulator steps):
//   barrier waits:  warp 0 [1,6], warp 1 [5,6] (block 0, barrier 0)
//   spin:           warp 3, loop pc 10..12 at line 20, iterations [13,16) [16,19) [19,22): one
//                   slice [13,22], 3 iterations; iteration [22,25) ends when pc 13 is reached
//   no spin:        warp 1 reads a different address each iteration (a reduction loop);
//                   warp 0 stores each iteration; warp 2's first loop's atomics change memory
//   critical sec.:  warp 2 lane 3 holds locks[5] [30,44]; the other lanes of warp 2 spin on the
//                   lock word meanwhile: iterations [34,37) [37,40) -> spin [34,40] at line 22
//   unreleased:     warp 3 lane 0 sets locks[7] at 45, never clears it: [45,50], open at end
//   data region updates are not critical sections.
//   report event at 46 on warp 3: "data race on x"
inline std::vector<Event> lock_kernel_events() {
  std::vector<Event> v;
  auto read = [&](uint64_t t, uint32_t w, uint8_t lane, uint64_t addr) {
    v.push_back(ev(t, w, EventKind::MemAccess, lane, tt::mem_aux(false), addr, 0));
  };
  auto write = [&](uint64_t t, uint32_t w, uint8_t lane, uint64_t addr) {
    v.push_back(ev(t, w, EventKind::MemAccess, lane, tt::mem_aux(true), addr, 1));
  };
  v.push_back(ev(0, 0, EventKind::KernelBegin, kAllLanes, 0, 0, 4));
  // Barrier in block 0.
  v.push_back(step(1, 0, 0xffffffffu, 3, 9, InstrClass::Barrier));
  v.push_back(ev(1, 0, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
  // Warp 1: a loop reading a[i] (different addresses): not a spin.
  for (int i = 0; i < 3; ++i) {
    v.push_back(step(2 + i, 1, 0xffffffffu, i == 0 ? 10 : 10, 30));
    read(2 + i, 1, 0, 0x9000 + 4 * uint64_t(i));
    v.push_back(step(2 + i, 1, 0xffffffffu, 11, 30, InstrClass::Branch));
  }
  v.push_back(step(5, 1, 0xffffffffu, 3, 9, InstrClass::Barrier));
  v.push_back(ev(5, 1, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
  v.push_back(ev(6, 0, EventKind::BarrierRelease, kAllLanes, 0, 64, 0));
  // Warp 0: a loop that stores each iteration (same address read too): not a spin.
  for (int i = 0; i < 3; ++i) {
    v.push_back(step(7, 0, 0xffffffffu, 20, 40));
    read(7, 0, 0, kFlag);
    write(7, 0, 0, 0xa000);
    v.push_back(step(7, 0, 0xffffffffu, 21, 40, InstrClass::Branch));
  }
  // Warp 3: enters at pc 5 (a store), spins on the flag at pc 10..12 (line 20).
  v.push_back(step(9, 3, 0xffffffffu, 5, 19, InstrClass::Store));
  write(9, 3, 0, 0xb000);
  uint64_t t = 10;
  for (int it = 0; it < 5; ++it) {  // 4 full passes, then the flag is seen set and pc 13 follows
    v.push_back(step(t, 3, 0xffffffffu, 10, 20, InstrClass::Load));
    read(t, 3, 0, kFlag);
    read(t, 3, 1, kFlag);
    ++t;
    v.push_back(step(t++, 3, 0xffffffffu, 11, 20));
    if (it < 4) v.push_back(step(t++, 3, 0xffffffffu, 12, 20, InstrClass::Branch));
    else break;
  }
  // t == 23 here; the last pass: pc 10 at 22, pc 11 at 23, pc 12 at 24, then pc 13 at 25.
  v.push_back(step(24, 3, 0xffffffffu, 12, 20, InstrClass::Branch));
  v.push_back(step(25, 3, 0xffffffffu, 13, 21));
  // Warp 2: a CAS loop (pc 6..7) whose atomics change memory each time: not a spin.
  for (int i = 0; i < 3; ++i) {
    v.push_back(step(26 + i, 2, 0xffffffffu, 6, 50, InstrClass::Atomic));
    v.push_back(ev(26 + i, 2, EventKind::Atomic, 0, tt::mem_aux(true), 0xc000, (uint64_t(i + 1) << 32) | uint64_t(i)));
    v.push_back(step(26 + i, 2, 0xffffffffu, 7, 50, InstrClass::Branch));
  }
  // Warp 2 lane 3 takes locks[5] at 30 ...
  v.push_back(step(30, 2, 0x8u, 50, 60, InstrClass::Atomic));
  v.push_back(ev(30, 2, EventKind::Atomic, 3, tt::mem_aux(true), kLockWord, (uint64_t(1) << 32) | 0));
  v.push_back(ev(30, 2, EventKind::RegionUpdate, 3, 0, 5, 1));
  // ... while lanes other than 3 spin on the lock word with failing CAS (old 1, new 1).
  const uint32_t others = 0xfffffff7u;
  for (uint64_t s = 31; s <= 40; s += 3) {
    v.push_back(step(s, 2, others, 10, 22, InstrClass::Atomic));
    for (uint8_t lane : {0, 1, 2})
      v.push_back(ev(s, 2, EventKind::Atomic, lane, tt::mem_aux(true), kLockWord, (uint64_t(1) << 32) | 1));
    v.push_back(step(s + 1, 2, others, 11, 22));
    v.push_back(step(s + 2, 2, others, 12, 22, InstrClass::Branch));
  }
  // Steps 31..42; the pass at 40..42 is unfinished when pc 13 comes at 43.
  v.push_back(step(43, 2, others, 13, 23));
  // Data region updates (not a lock kind) by warp 2 lane 3, then the unlock at 44.
  v.push_back(ev(43, 2, EventKind::RegionUpdate, 3, 1, 0, 9));
  v.push_back(ev(43, 2, EventKind::RegionUpdate, 3, 1, 0, 0));
  v.push_back(step(44, 2, 0x8u, 52, 62, InstrClass::Store));
  v.push_back(ev(44, 2, EventKind::RegionUpdate, 3, 0, 5, 0));
  // Warp 3 lane 0 takes locks[7] and never gives it back.
  v.push_back(step(45, 3, 0x1u, 50, 60, InstrClass::Atomic));
  v.push_back(ev(45, 3, EventKind::RegionUpdate, 0, 0, 7, 1));
  v.push_back(ev(46, 3, EventKind::Report, kAllLanes, uint16_t(ReportKindCode::Race), 0, 33));
  v.push_back(ev(50, 0, EventKind::KernelEnd, kAllLanes, 0, 0, 0));
  std::stable_sort(v.begin(), v.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  return v;
}

inline bool write_lock_trace(const std::string& path, std::string* err) {
  Writer w;
  if (!w.open(path, {{"program", "lock-demo"}, {"model", "its"}, {"scheduler", "rr"}, {"seed", 3},
                        {"device", "teaching"}},
                 false, WriterOptions{}, err))
    return false;
  w.region(region_json(0, "locks", "lock-bits", 0x3000, 128, 1, {32, 32}));
  w.region(region_json(1, "data", "array", 0x4000, 64, 32, {16}));
  w.kernel({{"name", "lock_kernel"}, {"launch", 0}, {"grid", {2, 1, 1}}, {"block", {64, 1, 1}},
            {"warps_per_block", 2}});
  uint32_t id = w.report({{"kind", "race"}, {"severity", "error"}, {"title", "data race on x"}, {"launch", 0},
                          {"parties", {{{"block", 1}, {"warp", 1}, {"lane", 0}, {"line", 33}, {"file", "lock.cu"}}}}});
  if (id != 0) return false;
  for (const Event& e : lock_kernel_events()) w.event(e);
  // Launch 1: a barrier never released (a deadlock).
  w.kernel({{"name", "stuck"}, {"launch", 1}, {"grid", {1, 1, 1}}, {"block", {64, 1, 1}}, {"warps_per_block", 2}});
  w.event(ev(100, 0, EventKind::KernelBegin, kAllLanes, 0, 1, 2));
  w.event(step(101, 1, 0xffffffffu, 3, 9, InstrClass::Barrier));
  w.event(ev(101, 1, EventKind::BarrierArrive, kAllLanes, 0, 0xffffffffu, 0));
  w.event(ev(110, 0, EventKind::KernelEnd, kAllLanes, 0, 1, 2));
  w.close();
  return true;
}

}  // namespace sample
