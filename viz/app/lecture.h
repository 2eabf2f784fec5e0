// Lecture mode (synclab-viz --lecture, docs/viz.md "Lecture mode"): the viewer set up for a
// projector. The high-contrast palette (palette::kLecturePalette) on black windows, a larger font
// (the TTF loaded at font_size() pixels, not a scaled bitmap), larger lane cells and a layout that
// gives Warp lanes and Timeline most of the width, without the windows that have nothing to show
// in the trace (App::nothing_to_show). The keys ] and [ (and, in lecture mode, Page
// Down / Page Up, what presentation remotes send) step to the next / previous interesting event,
// one per press. Exports (--export .png/.gif/.mp4) are drawn in the same style.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "viz/core/model.h"

namespace synclab::viz::app {
class App;
}

namespace synclab::viz::app::lecture {

constexpr float kFontSize = 22.0f;          // --font-size when --lecture is given without one, up to ...
constexpr float kFontLines = 720.0f;        // ... this height, and in proportion above (33 px at 1080)
constexpr float kMaxLaneCell = 44.0f;       // lane cell size limit in the tiled layout (else 26)
constexpr float kMaxLaneCellAlone = 64.0f;  // ... with --window lanes (else 40)
constexpr float kLeftWidth = 0.6f;          // Warp lanes and Timeline: this share of the width (else half)
constexpr float kReportsWidth = 0.5f;       // Reports: this share of the right column, Legend the rest (else 0.62)
constexpr uint64_t kBigLockBits = 64;       // a lock-bits region of at most this many bits ...
constexpr float kMinLockCell = 24.0f;       // ... draws its bits at least this many pixels wide and high
// A larger lock-bits region keeps its overview and gets a zoomed detail of the 32-bit words that
// matter at the cursor (win_locks.cpp), its bits kMinLockCell to kMaxZoomCell pixels, beside the
// overview when the overview keeps kMinOverviewCell pixels a bit, else below it.
constexpr float kMaxZoomCell = 28.0f;
constexpr float kMinOverviewCell = 4.0f;

// The lecture font's size for a picture (or window) `height` pixels high: kFontSize at kFontLines
// and fewer, in proportion above (docs/viz.md, "Lecture mode": the smallest glyph on the screen).
inline float font_size(int height) { return float(int(kFontSize * std::max(1.0f, float(height) / kFontLines) + 0.5f)); }

// Switches the process to lecture mode: the lecture palette for every window, and the ImGui style
// that setup_imgui() applies. Call before the ImGui context's style is set up.
void enable();
bool enabled();

// Lecture style on the current ImGui context (App::setup_imgui calls it when enabled()): windows
// on the palette's black background, white text, thicker borders.
void style_imgui();

// A kernel's name as lecture mode shows it where room is short: "lock_count_naive" for
// "(anonymous namespace)::lock_count_naive(int const*, int)" (no parameters, no qualifiers).
std::string short_kernel_name(const std::string& display);

// The marks that make an event interesting: where the viewer opens (Model::first_interesting):
// a report, a barrier release, a lock acquire.
constexpr Mark kInterestingMarks[3] = {Mark::Report, Mark::BarrierRelease, Mark::Acquire};

// The first interesting event of the launch after `cursor` (forward) or before it (back), or
// kNoCursor when there is none.
uint64_t next_interesting(const Model& m, int launch, uint64_t cursor, bool forward);

// What the event at `cursor` is, for the status line: "report", "barrier release", "lock acquire"
// (the first that applies), or "" when it is not interesting.
const char* interesting_kind(const Model& m, int launch, uint64_t cursor);

// ] / [: moves app's cursor to the next / previous interesting event and says which it was in the
// status line ("interesting event 3 of 12: barrier release"), or that there is none.
bool step_interesting(App& app, bool forward);

}  // namespace synclab::viz::app::lecture
