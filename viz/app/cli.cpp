// synclab-viz's command line: the options main.cpp documents, read into CliOptions. A function of
// its own so that the scenario fuzz target (tests/fuzz/targets/scenarios.cpp) reads a scenario's
// viewer options exactly as the viewer does.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "lecture.h"
#include "options.h"

namespace synclab::viz::app {

int parse_command_line(int argc, const char* const* argv, CliOptions* o) {
  std::string window_name, size, layout;
  std::string backend = "auto";
  CLI::App cli{
      "synclab-viz: animate what the threads of a SyncLab trace did (docs/viz.md).\n"
      "Without --export it opens the viewer (F1 there lists the keyboard shortcuts)."};
  cli.add_option("trace", o->trace, "trace file (SYNCLAB_TRACE=FILE or synclab-run --trace FILE)")->required();
  cli.add_option("--export", o->export_path,
                 "render offscreen (no display needed) into FILE: .png (a still at --step), .gif (an animation "
                 "from --from to --to, encoded with giflib) or .mp4 (the same, needs ffmpeg)");
  cli.add_option("--step", o->step,
                 "the event to show: a number, a percentage of the launch ('50%'), 'interesting' (default: the "
                 "first report, barrier release or lock acquire), 'first', 'last', 'report:K', 'most:R,R...' (the "
                 "first event at which regions R hold the most non-zero cells, e.g. locks held) or 'max:R,R...' "
                 "(... the largest sum of values), 'stale' or 'stale:R,R...' (the first load that read an older value, "
                 "of those regions' memory; SYNCLAB_MEMORY=relaxed runs); R: a region's name or the start of one, "
                 "none: all regions");
  cli.add_option("--from", o->from, "animation: first event (same forms as --step; default first)");
  cli.add_option("--to", o->to, "animation: last event (same forms as --step; default last)");
  cli.add_option("--fps", o->fps, "animation: frames per second (default 10)");
  cli.add_option("--frames", o->frames,
                 "animation: exactly N frames, evenly spaced from --from to --to (both included)")
      ->check(CLI::Range(1, 100000));
  cli.add_option("--every", o->every, "animation: a frame every K events from --from, and one at --to")
      ->check(CLI::Range(1LL, (1LL << 40)));
  cli.add_option("--max-frames", o->max_frames,
                 "animation without --frames: at most this many frames, evenly spaced (default 600)");
  cli.add_option("--window", window_name,
                 "export just this window, full-frame: lanes, locks, wavefront, timeline, source, reports "
                 "(also playback, legend, help)");
  cli.add_option("--layout", layout,
                 "with --lecture: only these windows, given the screen (comma-separated, e.g. lanes,locks; "
                 "the names --window takes)");
  cli.add_option("--relative-to", o->relative_to,
                 "draw the paths under DIR (source files, in reports) relative to it, e.g. the repository's root");
  cli.add_option("--size", size, "image (or window) size WxH (default 1600x900)");
  cli.add_option("--launch", o->launch, "kernel launch to show (0, 1, ...; default: the first with a report)");
  cli.add_flag("--all-launches", o->all_launches,
               "animation: play every launch of the trace in order, --frames spread over all their events "
               "(a wavefront filled by one launch per diagonal; not with --launch, --from or --to)");
  cli.add_option("--select", o->select, "select lane WARP:LANE (the Source window follows it)");
  cli.add_option("--block", o->block,
                 "shared regions (__shared__ arrays, synclab_region_shared): draw block N's copy (default 0); "
                 "--step most:/max: then look at that block's copy only")
      ->check(CLI::Range(0LL, (1LL << 40)));
  cli.add_option("--report", o->report, "jump to report K (0-based, in the Reports list) and select its lanes");
  CLI::Option* font_size =
      cli.add_option("--font-size", o->font_size,
                     "font size in pixels (default 15; with --lecture 22 up to 720 lines high, 33 at 1080)")
          ->check(CLI::Range(8.0f, 64.0f));
  cli.add_flag("--lecture", o->lecture,
               "lecture mode, for a projector: a high-contrast palette that colour-blind viewers can tell apart, "
               "a larger font and lane cells, ] / [ (and Page Down / Page Up) step through the interesting "
               "events; --export draws PNGs, GIFs and MP4s in the same style");
  cli.add_option("--offscreen", backend,
                 "offscreen OpenGL for --export: auto (EGL, else a hidden GLFW window), "
                 "egl, glfw")
      ->check(CLI::IsMember({"auto", "egl", "glfw"}));
  cli.add_option("--dump-layout", o->dump_layout, "test hook: write the drawn cells' rectangles and colours as JSON");
  cli.add_option("--probe", o->probes, "test hook: print the colour at the centre of a cell (e.g. lanes:0:5)")
      ->allow_extra_args(false);
  cli.add_option("--exit-after-frames", o->exit_after_frames,
                 "test hook (window mode): draw N frames, then save --screenshot / probes and exit");
  cli.add_option("--screenshot", o->screenshot, "test hook (window mode): PNG of the last frame");
  cli.add_option("--keys", o->keys,
                 "test hook (window mode): keys to press and clicks, e.g. n,right,shift+left,space,click:120:300");
  cli.add_option("--steer-dir", o->steer_dir,
                 "steering the schedule (Ctrl+click a lane: that warp runs next): keep each branch's trace, "
                 "schedule and output in DIR (default: a new synclab-steer-XXXXXX under $TMPDIR)");
  cli.add_option("--steer-timeout", o->steer_timeout, "steering: stop a re-run after this many seconds (default 60)")
      ->check(CLI::Range(0.1, 3600.0));
  cli.add_option("--challenge", o->challenge,
                 "challenge mode (./synclab challenge NN NAME writes FILE): show the goal and, for every trace opened "
                 "by steering, whether it is reached and in how many steps");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);  // --help: 0; a usage error: the message and CLI11's exit code for it
  }
  if (!size.empty()) {
    char extra = 0;
    if (std::sscanf(size.c_str(), "%dx%d%c", &o->width, &o->height, &extra) != 2 || o->width < 64 || o->height < 64 ||
        o->width > 8192 || o->height > 8192) {
      std::fprintf(stderr, "synclab-viz: --size '%s': expected WxH between 64x64 and 8192x8192\n", size.c_str());
      return 2;
    }
  }
  if (!layout.empty()) {  // "lanes,locks": window keys, comma-separated
    size_t start = 0;
    while (start <= layout.size()) {
      const size_t end = std::min(layout.find(',', start), layout.size());
      const std::string key = layout.substr(start, end - start);
      WindowId w;
      if (!window_from_key(key, &w)) {
        std::fprintf(stderr, "synclab-viz: --layout '%s': '%s' is not a window name (%s)\n", layout.c_str(),
                     key.c_str(), window_keys_list().c_str());
        return 2;
      }
      if (std::find(o->layout.begin(), o->layout.end(), w) == o->layout.end()) o->layout.push_back(w);
      start = end + 1;
    }
  }
  if (!window_name.empty()) {
    WindowId w;
    if (!window_from_key(window_name, &w)) {
      std::fprintf(stderr, "synclab-viz: --window '%s': not a window name (%s)\n", window_name.c_str(),
                   window_keys_list().c_str());
      return 2;
    }
    o->window = w;
  }
  if (o->lecture && font_size->count() == 0) o->font_size = lecture::font_size(o->height);
  o->backend = backend == "egl"    ? OffscreenBackend::Egl
               : backend == "glfw" ? OffscreenBackend::Glfw
                                   : OffscreenBackend::Auto;
  return -1;
}

}  // namespace synclab::viz::app
