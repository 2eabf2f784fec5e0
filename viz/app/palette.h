// The visualizer's colours, in one place: the windows draw with them, the legend shows them, and
// the tests compare read-back pixels against them. Plain RGB, no ImGui, so a test can include it.
#pragma once

#include <cstdint>

namespace synclab::viz::palette {

struct Rgb {
  uint8_t r, g, b;
  constexpr bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
  constexpr bool operator!=(const Rgb& o) const { return !(*this == o); }
};

// ---- lane states (Warp lanes window), indexed by synclab::viz::LaneState ----------------------
constexpr Rgb kLaneInactive{48, 48, 56};      // not started yet
constexpr Rgb kLaneActive{64, 192, 96};       // in the warp's current active mask
constexpr Rgb kLaneMaskedOff{72, 96, 150};    // live, but not in the mask (diverged)
constexpr Rgb kLaneAtBarrier{240, 160, 32};   // waiting at a barrier
constexpr Rgb kLaneSpinning{224, 56, 56};     // spinning (idle loop re-reading the same memory)
constexpr Rgb kLaneInCritical{176, 88, 232};  // holds a lock bit
constexpr Rgb kLaneExited{128, 128, 128};     // exited
constexpr Rgb kLaneStaleRead{255, 120, 200};  // its load read an older value (relaxed memory model)
constexpr Rgb kLaneStates[8] = {kLaneInactive, kLaneActive,     kLaneMaskedOff, kLaneAtBarrier,
                                kLaneSpinning, kLaneInCritical, kLaneExited,    kLaneStaleRead};

// ---- regions (Lock bits & flags window) --------------------------------------------------------
constexpr Rgb kLockFree{56, 120, 72};       // lock bit 0
constexpr Rgb kLockHeld{232, 72, 48};       // lock bit 1
constexpr Rgb kFlagClear{52, 56, 72};       // flag / word 0
constexpr Rgb kFlagSet{236, 204, 64};       // flag / word non-zero
constexpr Rgb kSharedUnwritten{30, 30, 34};  // shared region cell no thread of the block has written yet
constexpr Rgb kCellWritten{255, 255, 255};  // outline: written by the event at the cursor
constexpr Rgb kCellBuffered{0, 200, 255};   // inner outline: its latest write is not yet visible to all
constexpr Rgb kCellReadOld{255, 120, 200};  // outline: the event at the cursor read an older value here

// ---- wavefront heat map ------------------------------------------------------------------------
constexpr Rgb kHeatPending{40, 40, 48};   // not completed yet at the cursor
constexpr Rgb kHeatFront{255, 255, 255};  // outline of the front: completed cells next to pending ones
constexpr Rgb kHeatEarlier{150, 150, 160};  // completed by an earlier launch of the trace
// Completion colour for t in [0, 1] (0: the launch's first event, 1: its last): a blue ->
// teal -> green -> yellow ramp (viridis-like, 5 stops, linear in between).
inline Rgb heat(double t) {
  static constexpr Rgb stops[5] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  if (!(t > 0)) t = 0;
  if (t > 1) t = 1;
  const double x = t * 4;
  int i = int(x);
  if (i >= 4) i = 3;
  const double f = x - i;
  auto mix = [&](uint8_t a, uint8_t b) { return uint8_t(a + (b - a) * f + 0.5); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

// ---- timeline ----------------------------------------------------------------------------------
constexpr Rgb kSpanBarrier{240, 160, 32};   // barrier wait (as kLaneAtBarrier)
constexpr Rgb kSpanSpin{224, 56, 56};       // spin (as kLaneSpinning)
constexpr Rgb kSpanCritical{176, 88, 232};  // critical section (as kLaneInCritical)
constexpr Rgb kActivity{110, 170, 230};     // warp steps (brightness: average active lanes)
constexpr Rgb kCursor{255, 255, 255};       // the cursor line
constexpr Rgb kReportMark{255, 64, 160};    // a report
constexpr Rgb kAccessMark{64, 224, 224};    // an access of the selected report's interleaving
constexpr Rgb kRaceMark{255, 240, 80};      // ... one of the two racing accesses
constexpr Rgb kSelection{255, 255, 255};    // outline of selected lanes
constexpr Rgb kSourceLine{90, 70, 20};      // the selected lane's line (background)
constexpr Rgb kSourceOther{40, 60, 90};     // lines where other warps are
// ---- the host row (lanes and timeline) -----------------------------------------------------------
constexpr Rgb kHostWrite{64, 200, 255};  // the host's write under the cursor; a host write on the timeline
constexpr Rgb kHostWrote{40, 90, 120};   // the host has written before the cursor

}  // namespace synclab::viz::palette
