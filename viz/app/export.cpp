// Export: stills (PNG, through stb_image_write) and animations (GIF through giflib, gif_writer.h;
// MP4, and GIF when built without giflib: raw RGBA frames piped into ffmpeg), rendered offscreen;
// and the command-line view options shared with the window mode.
//
// Where things are (in this order):
//   Region names      peak_regions: the regions a "most:", "max:" or "stale:" step names
//   View options      resolve_cursor: an event from a --step word (a number, P%, first, last, interesting,
//                     report:K, most, max, stale); apply_view_options (--launch, --block, --report, --step,
//                     --select)
//   Still output      print_probes (--probe), write_layout (--dump-layout), write_png
//   Helpers           lower_ext, find_ffmpeg, Pipe (a child process reading frames on its stdin), fail,
//                     has_2d_region (what --window wavefront needs)
//   Animation frames  animation_cursors (--frames, --every, --max-frames); progress
//   run_export        the options checked; an animation's events (--from, --to, --all-launches); a still
//                     (PNG, layout, probes); a GIF through giflib (GifWriter); else frames piped into ffmpeg
#include <spawn.h>
#include <stb/stb_image_write.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "lecture.h"
#include "options.h"
#include "renderer.h"
#ifdef SYNCLAB_VIZ_GIFLIB
#include "gif_writer.h"
#endif

extern char** environ;

namespace synclab::viz::app {

namespace {

// "most[:R,R...]" / "max[:R,R...]": the regions named (each an exact name or the start of exactly
// one name; none: every region) into *out. false and *error when a name matches no region or
// several.
bool peak_regions(const Model& m, const std::string& list, std::vector<int>* out, std::string* error) {
  const auto& regs = m.regions();
  if (regs.empty()) {
    *error = "the trace has no regions";
    return false;
  }
  if (list.empty()) {
    for (size_t i = 0; i < regs.size(); ++i) out->push_back(int(i));
    return true;
  }
  auto names = [&]() {
    std::string t;
    for (const RegionInfo& r : regs) t += (t.empty() ? "\"" : ", \"") + r.name + "\"";
    return t;
  };
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string want = list.substr(start, end - start);
    start = end + 1;
    int exact = -1;
    std::vector<int> prefixed;
    for (size_t i = 0; i < regs.size(); ++i) {
      if (regs[i].name == want)
        exact = int(i);
      else if (!want.empty() && regs[i].name.rfind(want, 0) == 0)
        prefixed.push_back(int(i));
    }
    if (exact >= 0) {
      out->push_back(exact);
    } else if (prefixed.size() == 1) {
      out->push_back(prefixed[0]);
    } else {
      *error = "region '" + want + "' " + (prefixed.empty() ? "is not in the trace" : "names several regions") +
               " (regions: " + names() + "; give a whole name or the start of one)";
      return false;
    }
    if (end == list.size()) break;
  }
  return true;
}

}  // namespace

bool resolve_cursor(const App& app, const std::string& spec, uint64_t* cursor, std::string* error) {
  const uint64_t n = app.steps();
  const Model& m = app.model();
  if (n == 0) {
    *error = "launch " + std::to_string(app.launch()) + " has no events";
    return false;
  }
  for (const char* word : {"most", "max"}) {
    const std::string w = word;
    if (spec != w && spec.rfind(w + ":", 0) != 0) continue;
    std::vector<int> regions;
    if (!peak_regions(m, spec.size() > w.size() ? spec.substr(w.size() + 1) : "", &regions, error)) {
      *error = "'" + spec + "': " + *error;
      return false;
    }
    const uint64_t c = m.peak(app.launch(), regions,
                              w == "most" ? Model::PeakMeasure::NonZero : Model::PeakMeasure::Sum, app.shared_block());
    if (c == kNoCursor) {
      // Nothing to show there (a lab's TODO not done yet): the default moment, and say so.
      *cursor = std::min(m.first_interesting(app.launch()), n - 1);
      std::fprintf(stderr,
                   "synclab-viz: '%s': those regions stay 0 in launch %d; showing the first interesting event "
                   "(%" PRIu64 ") instead\n",
                   spec.c_str(), app.launch(), *cursor);
      return true;
    }
    *cursor = std::min(c, n - 1);
    return true;
  }
  if (spec == "stale" || spec.rfind("stale:", 0) == 0) {
    // The first load that read an older value (of the regions' memory, when named).
    std::vector<int> regions;
    if (spec.size() > 6 && !peak_regions(m, spec.substr(6), &regions, error)) {
      *error = "'" + spec + "': " + *error;
      return false;
    }
    for (uint64_t c = m.next(app.launch(), kNoCursor, Mark::StaleRead); c != kNoCursor;
         c = m.next(app.launch(), c, Mark::StaleRead)) {
      const Event& e = m.event_at(app.launch(), c);
      bool in = regions.empty();
      for (int r : regions) {
        const RegionInfo& R = m.regions()[size_t(r)];
        in = in || (e.a >= R.address && e.a - R.address < R.bytes);
      }
      if (in) {
        *cursor = c;
        return true;
      }
    }
    *cursor = std::min(m.first_interesting(app.launch()), n - 1);
    std::fprintf(stderr,
                 "synclab-viz: '%s': no load read an older value in launch %d (only SYNCLAB_MEMORY=relaxed runs "
                 "have such loads); showing the first interesting event (%" PRIu64 ") instead\n",
                 spec.c_str(), app.launch(), *cursor);
    return true;
  }
  if (spec.empty() || spec == "interesting") {
    *cursor = std::min(m.first_interesting(app.launch()), n - 1);
    return true;
  }
  if (spec == "first") {
    *cursor = 0;
    return true;
  }
  if (spec == "last" || spec == "end") {
    *cursor = n - 1;
    return true;
  }
  if (spec.size() > 1 && spec.back() == '%') {
    char* end = nullptr;
    const double pct = std::strtod(spec.c_str(), &end);
    if (!end || *end != '%' || !(pct >= 0 && pct <= 100)) {
      *error = "'" + spec + "': a percentage of the launch must be 0% .. 100%";
      return false;
    }
    *cursor = std::min<uint64_t>(n - 1, uint64_t(std::llround(pct / 100.0 * double(n - 1))));
    return true;
  }
  if (spec.rfind("report:", 0) == 0) {
    char* end = nullptr;
    const unsigned long k = std::strtoul(spec.c_str() + 7, &end, 10);
    const auto& reps = m.launch_reports(app.launch());
    if (!end || *end || spec.size() == 7 || k >= reps.size()) {
      *error = "'" + spec + "': launch " + std::to_string(app.launch()) + " has " + std::to_string(reps.size()) +
               " report(s)";
      return false;
    }
    const ReportInfo& r = m.reports()[reps[k]];
    if (r.cursor == kNoCursor) {
      *error = "'" + spec + "': that report has no event in the trace";
      return false;
    }
    *cursor = r.cursor;
    return true;
  }
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(spec.c_str(), &end, 10);
  if (spec[0] == '-' || !end || *end || errno) {
    *error = "'" + spec +
             "' is not an event number, 'P%', 'interesting', 'first', 'last', 'report:K', "
             "'most:REGIONS', 'max:REGIONS', 'stale' or 'stale:REGIONS'";
    return false;
  }
  if (v >= n) {
    *error = "event " + spec + " is past the end of launch " + std::to_string(app.launch()) + " (events 0.." +
             std::to_string(n - 1) + ")";
    return false;
  }
  *cursor = v;
  return true;
}

bool apply_view_options(App& app, const CliOptions& o, std::string* error) {
  if (o.lecture) lecture::enable();  // before the ImGui style is set up (window or offscreen renderer)
  const Model& m = app.model();
  if (m.launches().empty()) {
    *error = "the trace has no kernel launches";
    return false;
  }
  if (o.launch >= 0) {
    if (size_t(o.launch) >= m.launches().size()) {
      *error = "--launch " + std::to_string(o.launch) + ": the trace has " + std::to_string(m.launches().size()) +
               " launch(es) (0.." + std::to_string(m.launches().size() - 1) + ")";
      return false;
    }
    app.set_launch(o.launch);
  }
  if (o.block >= 0) {
    const uint64_t blocks = app.launch_info().blocks;
    if (uint64_t(o.block) >= blocks) {
      *error = "--block " + std::to_string(o.block) + ": launch " + std::to_string(app.launch()) + " has " +
               std::to_string(blocks) + " block(s) (0.." + std::to_string(blocks ? blocks - 1 : 0) + ")";
      return false;
    }
    if (!app.has_shared_regions())
      std::fprintf(stderr, "synclab-viz: --block %lld: the trace has no shared region; nothing changes\n", o.block);
    app.set_shared_block(uint64_t(o.block));
  }
  if (o.report >= 0) {
    if (size_t(o.report) >= m.reports().size()) {
      *error = "--report " + std::to_string(o.report) + ": the trace has " + std::to_string(m.reports().size()) +
               " report(s)";
      return false;
    }
    app.jump_to_report(size_t(o.report));
  }
  if (!o.step.empty() || o.report < 0) {
    uint64_t c = 0;
    if (!resolve_cursor(app, o.step, &c, error)) {
      *error = "--step " + *error;
      return false;
    }
    app.seek(c);
  }
  if (!o.select.empty()) {
    unsigned w = 0, l = 0;
    char extra = 0;
    if (std::sscanf(o.select.c_str(), "%u:%u%c", &w, &l, &extra) != 2 || l > 31 || w >= app.launch_info().warps) {
      *error = "--select '" + o.select + "': expected WARP:LANE with a warp of the launch (0.." +
               std::to_string(app.launch_info().warps ? app.launch_info().warps - 1 : 0) + ") and a lane 0..31";
      return false;
    }
    app.select_lane(w, int(l));
    app.lanes_ui.scroll_to_selected = true;
  }
  return true;
}

bool print_probes(const App& app, const std::vector<std::string>& probes, const std::vector<uint8_t>& rgba, int width,
                  int height, std::string* error) {
  for (const std::string& id : probes) {
    const LayoutCell* c = app.recorder.find(id);
    if (!c) {
      *error = "--probe " + id +
               ": no such cell was drawn (ids look like lanes:WARP:LANE, locks:REGION:ELEMENT, "
               "wavefront:REGION:ROW:COL; --dump-layout lists them)";
      return false;
    }
    const int x = int((c->x0 + c->x1) * 0.5f), y = int((c->y0 + c->y1) * 0.5f);
    if (x < 0 || y < 0 || x >= width || y >= height) {
      *error = "--probe " + id + ": the cell is outside the image";
      return false;
    }
    const uint8_t* p = &rgba[(size_t(y) * width + x) * 4];
    std::printf("probe %s %u %u %u %s\n", id.c_str(), p[0], p[1], p[2], c->what.c_str());
  }
  std::fflush(stdout);
  return true;
}

bool write_layout(const App& app, const std::string& path, int width, int height, std::string* error) {
  std::ofstream f(path);
  f << app.recorder.json(width, height, app.launch(), app.cursor()) << "\n";
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool write_png(const std::string& path, const std::vector<uint8_t>& rgba, int width, int height, std::string* error) {
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4)) {
    *error = "cannot write " + path + ": " + std::strerror(errno ? errno : EIO);
    return false;
  }
  return true;
}

namespace {

std::string lower_ext(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// ffmpeg from $SYNCLAB_FFMPEG, else from $PATH; "" when there is none.
std::string find_ffmpeg() {
  if (const char* env = std::getenv("SYNCLAB_FFMPEG")) return access(env, X_OK) == 0 ? env : "";
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/ffmpeg";
    if (access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return "";
}

// A child process reading our frames on its stdin.
class Pipe {
 public:
  bool start(const std::vector<std::string>& argv, std::string* error) {
    int fds[2];
    if (pipe(fds) != 0) {
      *error = std::string("pipe: ") + std::strerror(errno);
      return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (rc != 0) {
      close(fds[1]);
      *error = "cannot run " + argv[0] + ": " + std::strerror(rc);
      return false;
    }
    fd_ = fds[1];
    return true;
  }
  bool write_all(const uint8_t* data, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      data += w;
      n -= size_t(w);
    }
    return true;
  }
  // Closes its stdin and waits; the exit status (-1 when killed by a signal).
  int finish() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "synclab-viz: %s\n", msg.c_str());
  return 1;
}

// The regions the Wavefront window can draw: a "matrix", or an "array" of several rows.
bool has_2d_region(const Model& m, std::string* names) {
  for (const RegionInfo& r : m.regions()) {
    if (wavefront_region(r)) return true;
    *names += (names->empty() ? "\"" : ", \"") + r.name + "\" (" + r.kind_name + ", " + std::to_string(r.cells) +
              (r.rows > 1 ? " elements in " + std::to_string(r.rows) + " rows)" : " elements in one row)");
  }
  return false;
}

// The events an animation shows, from..to: --frames N evenly spaced, --every K, or (neither)
// one per event up to --max-frames, evenly spaced. false and *error when the numbers cannot work.
bool animation_cursors(const CliOptions& o, uint64_t from, uint64_t to, std::vector<uint64_t>* out,
                       std::string* error) {
  const uint64_t span = to - from + 1;
  const std::string range = "events " + std::to_string(from) + ".." + std::to_string(to);
  if (o.frames > 0 && o.every > 0) {
    *error = "--frames and --every both choose the frames: give one of them";
    return false;
  }
  uint64_t n = 0;
  if (o.frames > 0) {
    n = uint64_t(o.frames);
    if (n > span) {
      *error = "--frames " + std::to_string(o.frames) + ": " + range + " are " + std::to_string(span) +
               " event(s), one frame each at most: ask for --frames " + std::to_string(span) +
               " or fewer, or widen --from/--to";
      return false;
    }
  } else if (o.every > 0) {
    const uint64_t k = uint64_t(o.every);
    for (uint64_t c = from;; c += k) {
      out->push_back(c);
      if (to - c < k) break;
    }
    if (out->back() != to) out->push_back(to);
    if (out->size() > uint64_t(std::max(1, o.max_frames))) {
      *error = "--every " + std::to_string(o.every) + " makes " + std::to_string(out->size()) + " frames of " + range +
               ", more than --max-frames " + std::to_string(o.max_frames) + ": take a larger K, or raise --max-frames";
      out->clear();
      return false;
    }
    return true;
  } else {
    n = std::min<uint64_t>(span, uint64_t(std::max(1, o.max_frames)));
    if (n < span)
      std::fprintf(stderr,
                   "synclab-viz: %" PRIu64 " events in the range; exporting %" PRIu64
                   " evenly spaced frames (--max-frames or --frames raises it)\n",
                   span, n);
  }
  for (uint64_t f = 0; f < n; ++f) out->push_back(n == 1 ? from : from + (span - 1) * f / (n - 1));
  return true;
}

// "  25%: frame 15 of 60 (event 1234)" on stdout after each quarter of a long animation.
void progress(uint64_t done, uint64_t total, uint64_t cursor) {
  if (total < 20) return;
  const uint64_t q = done * 4 / total, before = (done - 1) * 4 / total;
  if (q == before || q >= 4) return;
  std::printf("  %" PRIu64 "%%: frame %" PRIu64 " of %" PRIu64 " (event %" PRIu64 ")\n", q * 25, done, total, cursor);
  std::fflush(stdout);
}

}  // namespace

int run_export(App& app, const CliOptions& o) {
  const std::string ext = lower_ext(o.export_path);
  const bool still = ext == "png";
  const bool gif = ext == "gif";
  const bool video = gif || ext == "mp4";
  if (!still && !video)
    return fail("--export " + o.export_path +
                ": the file name must end in .png (a still), .gif or .mp4 (an animation)");
  if (o.all_launches && still)
    return fail("--all-launches plays every launch as an animation; --export " + o.export_path +
                " is a still (.png): give a .gif or .mp4, or pick one launch with --launch");
  if (o.all_launches && (o.launch >= 0 || !o.from.empty() || !o.to.empty()))
    return fail(
        "--all-launches plays every launch from its first event to its last: it takes no --launch, "
        "--from or --to");
  if (still && (o.frames > 0 || o.every > 0))
    return fail(std::string(o.frames > 0 ? "--frames" : "--every") + " chooses an animation's frames; --export " +
                o.export_path + " is a still (a .gif or .mp4 is an animation; --step picks a still's event)");
  if (o.window && *o.window == WindowId::Wavefront) {
    std::string names;
    if (!has_2d_region(app.model(), &names))
      return fail(
          "--window wavefront draws a 2-D table (a \"matrix\", or an \"array\" of several rows; not lock bits "
          "or flags), and " +
          o.trace + " has none (" + (names.empty() ? "it names no regions" : "its regions: " + names) +
          "). A program names one with synclab_region(ptr, bytes, \"grid\", \"matrix\", rows, cols) "
          "(docs/viz.md)");
  }

  std::string err, ffmpeg;
  std::vector<uint64_t> cursors;
  uint64_t from = 0, to = 0;
#ifdef SYNCLAB_VIZ_GIFLIB
  const bool with_ffmpeg = video && !gif;
  const char* without_ffmpeg = "PNG and GIF export work without it.";
#else
  const bool with_ffmpeg = video;  // built without giflib: GIFs through ffmpeg too
  const char* without_ffmpeg = "PNG export works without it.";
#endif
  // With --all-launches a frame's position counts the events of every launch in order: launch L's
  // cursor c is position starts[L] + c.
  std::vector<uint64_t> starts;
  if (video) {
    if (!(o.fps > 0 && o.fps <= 240)) return fail("--fps must be in (0, 240]");
    if (o.all_launches) {
      uint64_t total = 0;
      for (const LaunchInfo& L : app.model().launches()) {
        starts.push_back(total);
        total += L.steps;
      }
      if (total == 0) return fail("the trace's launches have no events");
      from = 0;
      to = total - 1;
    } else {
      if (!resolve_cursor(app, o.from.empty() ? "first" : o.from, &from, &err)) return fail("--from " + err);
      if (!resolve_cursor(app, o.to.empty() ? "last" : o.to, &to, &err)) return fail("--to " + err);
      if (to < from) return fail("--to must not be before --from");
    }
    if (!animation_cursors(o, from, to, &cursors, &err)) return fail(err);
  }
  // Shows frame position g: a cursor of the current launch, or with --all-launches a launch and
  // its cursor.
  auto show = [&](uint64_t g) {
    if (starts.empty()) {
      app.seek(g);
      return;
    }
    int L = int(std::upper_bound(starts.begin(), starts.end(), g) - starts.begin()) - 1;
    while (L > 0 && app.model().launches()[size_t(L)].steps == 0) --L;
    if (app.launch() != L) app.set_launch(L);
    app.seek(g - starts[size_t(L)]);
  };
  const std::string launches_text = starts.empty()
                                        ? "of launch " + std::to_string(app.launch())
                                        : "of launches 0.." + std::to_string(starts.size() - 1) + " in order";
  if (with_ffmpeg) {
    ffmpeg = find_ffmpeg();
    if (ffmpeg.empty())
      return fail("--export " + o.export_path + " needs ffmpeg to encode the " + ext +
                  ", and there is no ffmpeg on $PATH" +
                  (std::getenv("SYNCLAB_FFMPEG") ? " ($SYNCLAB_FFMPEG is set but not executable)" : "") +
                  ". Install it (sudo apt-get install ffmpeg, or scripts/bootstrap --gui); " + without_ffmpeg);
  }

  std::string note;
  auto r = OffscreenRenderer::create(o.width, o.height, o.font_size, o.backend, &err, &note);
  if (!r) return fail(err);
  if (!note.empty()) std::fprintf(stderr, "synclab-viz: %s\n", note.c_str());
  std::vector<uint8_t> rgba;

  if (still) {
    app.recorder.enabled = !o.dump_layout.empty() || !o.probes.empty();
    r->render(app, 4);
    r->read(&rgba);
    if (!write_png(o.export_path, rgba, o.width, o.height, &err)) return fail(err);
    if (!o.dump_layout.empty() && !write_layout(app, o.dump_layout, o.width, o.height, &err)) return fail(err);
    if (!o.probes.empty() && !print_probes(app, o.probes, rgba, o.width, o.height, &err)) return fail(err);
    std::printf("wrote %s (%dx%d, event %" PRIu64 " of launch %d, rendered with %s)\n", o.export_path.c_str(), o.width,
                o.height, app.cursor(), app.launch(), r->context().kind());
    return 0;
  }

  const uint64_t frames = cursors.size();
#ifdef SYNCLAB_VIZ_GIFLIB
  if (gif) {
    // A GIF's frame delay is in hundredths of a second (2 at least: browsers slow shorter ones
    // down); the last frame stays one second longer before the animation starts over.
    const int delay = std::max(2, int(std::lround(100.0 / o.fps)));
    if (std::fabs(100.0 / delay - o.fps) > 0.05 * o.fps)
      std::fprintf(stderr, "synclab-viz: a GIF's frame delays are hundredths of a second: --fps %g plays at %.3g\n",
                   o.fps, 100.0 / delay);
    GifWriter w;
    if (!w.open(o.export_path, o.width, o.height, &err)) return fail(err);
    show(cursors.front());
    r->render(app, 3);  // settle the layout once
    for (uint64_t f = 0; f < frames; ++f) {
      show(cursors[f]);
      r->render(app, 2);
      r->read(&rgba);
      if (!w.add_frame(rgba, f + 1 == frames ? delay + 100 : delay, &err)) return fail(err);  // w removes the file
      progress(f + 1, frames, cursors[f]);
    }
    if (!w.finish(&err)) return fail(err);
    std::string approx;
    if (w.approximated_frames() > 0)
      approx = "; " + std::to_string(w.approximated_frames()) +
               " frame(s) had more than 256 colours and were fitted to 256 (the 64 most common kept exactly)";
    std::printf("wrote %s (%dx%d, %" PRIu64 " frames at %g fps, events %" PRIu64 "..%" PRIu64
                " %s, rendered with %s%s)\n",
                o.export_path.c_str(), o.width, o.height, frames, 100.0 / delay, from, to, launches_text.c_str(),
                r->context().kind(), approx.c_str());
    return 0;
  }
#endif

  // Through ffmpeg: raw RGBA frames on its stdin.
  std::vector<std::string> argv = {ffmpeg,
                                   "-hide_banner",
                                   "-loglevel",
                                   "error",
                                   "-y",
                                   "-f",
                                   "rawvideo",
                                   "-pixel_format",
                                   "rgba",
                                   "-video_size",
                                   std::to_string(o.width) + "x" + std::to_string(o.height),
                                   "-framerate",
                                   std::to_string(o.fps),
                                   "-i",
                                   "-"};
  if (gif) {
    argv.insert(argv.end(),
                {"-vf", "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer", "-loop", "0"});
  } else {
    argv.insert(argv.end(), {"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                             "-movflags", "+faststart"});
  }
  argv.push_back(o.export_path);
  std::signal(SIGPIPE, SIG_IGN);
  Pipe pipe;
  if (!pipe.start(argv, &err)) return fail(err);
  show(cursors.front());
  r->render(app, 3);  // settle the layout once
  bool write_ok = true;
  for (uint64_t f = 0; f < frames && write_ok; ++f) {
    show(cursors[f]);
    r->render(app, 2);
    r->read(&rgba);
    write_ok = pipe.write_all(rgba.data(), rgba.size());
    progress(f + 1, frames, cursors[f]);
  }
  const int status = pipe.finish();
  if (!write_ok || status != 0)
    return fail("ffmpeg (" + ffmpeg + ") failed to encode " + o.export_path +
                (status > 0 ? " (exit status " + std::to_string(status) + "; its messages are above)" : " (it died)"));
  struct stat st {};
  if (::stat(o.export_path.c_str(), &st) != 0 || st.st_size == 0)
    return fail("ffmpeg finished but " + o.export_path + " is missing or empty");
  std::printf("wrote %s (%dx%d, %" PRIu64 " frames at %g fps, events %" PRIu64 "..%" PRIu64 " %s, rendered with %s)\n",
              o.export_path.c_str(), o.width, o.height, frames, o.fps, from, to, launches_text.c_str(),
              r->context().kind());
  return 0;
}

}  // namespace synclab::viz::app
