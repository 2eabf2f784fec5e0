// synclab-viz's command line (main.cpp parses it; export.cpp and main.cpp act on it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app.h"
#include "gl_context.h"

namespace synclab::viz::app {

struct CliOptions {
  std::string trace;
  // Export (offscreen): a .png still, or a .gif / .mp4 animation from --from to --to.
  std::string export_path;
  std::string step;      // cursor spec (see resolve_cursor); "" = first interesting
  std::string from, to;  // animation range (cursor specs); "" = first / last
  double fps = 10;
  int max_frames = 600;            // animation: at most this many frames (evenly sampled)
  int frames = 0;                  // animation: exactly this many frames, evenly spaced (0: not given)
  long long every = 0;             // animation: a frame every this many events (0: not given)
  std::optional<WindowId> window;  // one window full-frame
  std::vector<WindowId> layout;    // --layout lanes,locks: lecture mode shows these windows only
  std::string relative_to;         // --relative-to DIR: paths under DIR drawn relative to it
  int width = 1600, height = 900;
  int launch = -1;            // index into Model::launches(); -1: App::default_launch()
  bool all_launches = false;  // animation: every launch in order
  float font_size = 15;       // --lecture without --font-size: lecture::font_size(height)
  bool lecture = false;       // --lecture: the projector palette, font and layout (lecture.h)
  std::string select;         // "WARP:LANE"
  int report = -1;            // jump to this report (index in the Reports list)
  long long block = -1;       // shared regions: show this block's copy (-1: block 0)
  OffscreenBackend backend = OffscreenBackend::Auto;
  // Test hooks: cell rectangles as JSON; the colour at the centre of cells ("lanes:0:5").
  std::string dump_layout;
  std::vector<std::string> probes;
  // Window mode test hooks: run this many frames then exit; save the last one.
  int exit_after_frames = 0;
  std::string screenshot;
  // Window mode test hook: keys to press, one every other frame from the third frame on:
  // comma-separated single characters ("n", "b") or key names (space, left, right, up, down,
  // home, end, pageup, pagedown, escape; "shift+" in front holds Shift), or click:X:Y (a left
  // click at that pixel).
  std::string keys;
  // Steering the schedule (steer.h): the directory for the branches' traces and schedules ("" = a
  // new one under $TMPDIR) and the longest a re-run may take.
  std::string steer_dir;
  double steer_timeout = 60;
  std::string challenge;  // --challenge FILE (./synclab challenge NN NAME writes it)
};

// Reads synclab-viz's command line (viz/app/cli.cpp) into *o. -1 when the viewer should go on;
// otherwise the exit status, with the message printed: 0 for --help, non-zero for a usage error
// (CLI11's code for an unknown option or a value out of range; 2 for a bad --size or --window).
// argv[0] is the program name.
int parse_command_line(int argc, const char* const* argv, CliOptions* o);

// Cursor specs: a number (event index in the launch), "P%" (that far into the launch),
// "interesting" (the first interesting event), "first", "last", "report:K" (the K-th report's
// event, 0-based, in the launch's order), "most:R,R..." (the first event at which the regions
// named have the most non-zero cells: lock bits held, flags set) and "max:R,R..." (the first at
// which their values add up to the most); R is a region's name or the start of exactly one
// region's name, none means every region. When those regions stay 0, "most"/"max" fall back to
// "interesting" with a note on stderr. "stale" / "stale:R,R..." is the first load that read an
// older value (of those regions' memory), in a relaxed memory model run; with none, "interesting".
bool resolve_cursor(const App& app, const std::string& spec, uint64_t* cursor, std::string* error);

// Applies --launch, --block, --step, --report and --select to a new App. false and *error when one is bad.
bool apply_view_options(App& app, const CliOptions& o, std::string* error);

// --probe output for the pixels of one frame: "probe ID R G B WHAT" per probe (the colour at the
// centre of the cell's rectangle); false when a probe names no cell drawn this frame.
bool print_probes(const App& app, const std::vector<std::string>& probes, const std::vector<uint8_t>& rgba, int width,
                  int height, std::string* error);
bool write_layout(const App& app, const std::string& path, int width, int height, std::string* error);
bool write_png(const std::string& path, const std::vector<uint8_t>& rgba, int width, int height, std::string* error);

// The export: renders offscreen and writes export_path. Returns the exit status (messages on
// stderr, the written path on stdout).
int run_export(App& app, const CliOptions& o);

}  // namespace synclab::viz::app
