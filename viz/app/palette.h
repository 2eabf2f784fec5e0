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

// ---- palettes ------------------------------------------------------------------------------------
// Every colour a window draws a state with. The windows read the named references below
// (kLaneActive, ...), which show the palette in use: kDefaultPalette, or kLecturePalette after
// use(kLecturePalette) (synclab-viz --lecture, viz/app/lecture.h).
struct Palette {
  Rgb background;  // window background (ImGui's WindowBg): what contrast ratios are measured against
  // lane states (Warp lanes window), indexed by synclab::viz::LaneState
  Rgb lane_states[8];
  // regions (Lock bits & flags window)
  Rgb lock_free, lock_held, flag_clear, flag_set, shared_unwritten, cell_written, cell_buffered, cell_read_old;
  // the zoomed detail of a large lock table (--lecture): its frame and the outline of its part in the overview
  Rgb zoom_frame;
  // wavefront heat map (the completion ramp is heat(), below, in both palettes)
  Rgb heat_pending, heat_front, heat_earlier;
  // timeline, selection, source
  Rgb span_barrier, span_spin, span_critical, activity, cursor, report_mark, access_mark, race_mark, selection,
      source_line, source_other;
  // the host row (lanes and timeline)
  Rgb host_write, host_wrote;
};

inline constexpr Palette kDefaultPalette{
    {15, 15, 15},  // ImGui's dark style, made opaque
    {
        {48, 48, 56},     // not started yet
        {64, 192, 96},    // in the warp's current active mask
        {72, 96, 150},    // live, but not in the mask (diverged)
        {240, 160, 32},   // waiting at a barrier
        {224, 56, 56},    // spinning (idle loop re-reading the same memory)
        {176, 88, 232},   // holds a lock bit
        {128, 128, 128},  // exited
        {255, 120, 200},  // its load read an older value (relaxed memory model)
    },
    {56, 120, 72},    // lock bit 0
    {232, 72, 48},    // lock bit 1
    {52, 56, 72},     // flag / word 0
    {236, 204, 64},   // flag / word non-zero
    {30, 30, 34},     // shared region cell no thread of the block has written yet
    {255, 255, 255},  // outline: written by the event at the cursor
    {0, 200, 255},    // inner outline: its latest write is not yet visible to all
    {255, 120, 200},  // outline: the event at the cursor read an older value here
    {255, 255, 0},    // frame of the zoomed lock bits, and of their part of the overview
    {40, 40, 48},     // heat map: not completed yet at the cursor
    {255, 255, 255},  // heat map: outline of the front (completed cells next to pending ones)
    {150, 150, 160},  // heat map: completed by an earlier launch of the trace
    {240, 160, 32},   // timeline: barrier wait (as at barrier)
    {224, 56, 56},    // timeline: spin (as spinning)
    {176, 88, 232},   // timeline: critical section (as holds a lock bit)
    {110, 170, 230},  // timeline: warp steps (brightness: average active lanes)
    {255, 255, 255},  // timeline: the cursor line
    {255, 64, 160},   // timeline: a report
    {64, 224, 224},   // an access of the selected report's interleaving
    {255, 240, 80},   // ... one of the two racing accesses
    {255, 255, 255},  // outline of selected lanes
    {90, 70, 20},     // source: the selected lane's line (background)
    {40, 60, 90},     // source: lines where other warps are
    {64, 200, 255},   // the host's access under the cursor; a host access on the timeline
    {40, 90, 120},    // the host has accessed before the cursor
};

// For a projector and for colour-blind viewers (docs/viz.md, "Lecture mode"): a black background;
// the state colours each at least 3:1 against it (WCAG 2's contrast ratio) and at least 14
// CIEDE2000 apart from each other for normal vision and under simulated deuteranopia and
// protanopia (Machado, Oliveira and Fernandes 2009); tests/viz/app/lecture.test.cpp checks both.
inline constexpr Palette kLecturePalette{
    {0, 0, 0},
    {
        {111, 111, 111},  // not started: mid grey
        {0, 153, 93},     // active: green
        {105, 103, 223},  // masked off: violet blue
        {217, 162, 10},   // at barrier: amber
        {209, 59, 2},     // spinning: red orange
        {189, 145, 255},  // holds a lock bit: lavender
        {152, 152, 152},  // exited: light grey
        {249, 253, 33},   // read an older value: yellow
    },
    {111, 111, 111},  // lock bit 0: as not started
    {189, 145, 255},  // lock bit 1: as holds a lock bit
    {111, 111, 111},  // flag / word 0
    {249, 253, 33},   // flag / word non-zero
    {40, 40, 40},
    {255, 255, 255},
    {0, 200, 255},
    {255, 120, 200},
    {255, 255, 0},  // zoomed lock bits' frame: yellow, as the cursor line
    {40, 40, 48},
    {255, 255, 255},
    {150, 150, 160},
    {217, 162, 10},   // barrier wait (as at barrier)
    {209, 59, 2},     // spin (as spinning)
    {189, 145, 255},  // critical section (as holds a lock bit)
    {110, 170, 230},
    {255, 255, 0},    // the cursor line: yellow (white is a report here)
    {255, 255, 255},  // a report: white
    {64, 224, 224},
    {255, 240, 80},
    {255, 255, 255},
    {90, 70, 20},
    {40, 60, 90},
    {128, 203, 212},  // host access under the cursor: pale cyan
    {0, 102, 131},    // host accessed before: dark teal
};

// The palette the windows draw with, and the names they use for its colours.
inline Palette active_palette = kDefaultPalette;
inline void use(const Palette& p) { active_palette = p; }

// ---- lane states (Warp lanes window), indexed by synclab::viz::LaneState ----------------------
inline const Rgb& kLaneInactive = active_palette.lane_states[0];    // not started yet
inline const Rgb& kLaneActive = active_palette.lane_states[1];      // in the warp's current active mask
inline const Rgb& kLaneMaskedOff = active_palette.lane_states[2];   // live, but not in the mask (diverged)
inline const Rgb& kLaneAtBarrier = active_palette.lane_states[3];   // waiting at a barrier
inline const Rgb& kLaneSpinning = active_palette.lane_states[4];    // spinning
inline const Rgb& kLaneInCritical = active_palette.lane_states[5];  // holds a lock bit
inline const Rgb& kLaneExited = active_palette.lane_states[6];      // exited
inline const Rgb& kLaneStaleRead = active_palette.lane_states[7];   // its load read an older value
inline const Rgb (&kLaneStates)[8] = active_palette.lane_states;

// ---- regions (Lock bits & flags window) --------------------------------------------------------
inline const Rgb& kLockFree = active_palette.lock_free;
inline const Rgb& kLockHeld = active_palette.lock_held;
inline const Rgb& kFlagClear = active_palette.flag_clear;
inline const Rgb& kFlagSet = active_palette.flag_set;
inline const Rgb& kSharedUnwritten = active_palette.shared_unwritten;
inline const Rgb& kCellWritten = active_palette.cell_written;
inline const Rgb& kCellBuffered = active_palette.cell_buffered;
inline const Rgb& kCellReadOld = active_palette.cell_read_old;
inline const Rgb& kZoomFrame = active_palette.zoom_frame;

// ---- wavefront heat map ------------------------------------------------------------------------
inline const Rgb& kHeatPending = active_palette.heat_pending;
inline const Rgb& kHeatFront = active_palette.heat_front;
inline const Rgb& kHeatEarlier = active_palette.heat_earlier;
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
inline const Rgb& kSpanBarrier = active_palette.span_barrier;
inline const Rgb& kSpanSpin = active_palette.span_spin;
inline const Rgb& kSpanCritical = active_palette.span_critical;
inline const Rgb& kActivity = active_palette.activity;
inline const Rgb& kCursor = active_palette.cursor;
inline const Rgb& kReportMark = active_palette.report_mark;
inline const Rgb& kAccessMark = active_palette.access_mark;
inline const Rgb& kRaceMark = active_palette.race_mark;
inline const Rgb& kSelection = active_palette.selection;
inline const Rgb& kSourceLine = active_palette.source_line;
inline const Rgb& kSourceOther = active_palette.source_other;
// ---- the host row (lanes and timeline) -----------------------------------------------------------
inline const Rgb& kHostWrite = active_palette.host_write;
inline const Rgb& kHostWrote = active_palette.host_wrote;

}  // namespace synclab::viz::palette
