// Tests of steering the schedule in synclab-viz (viz/app/steer.h; docs/viz.md, "Steering the
// schedule"): the viewer runs in a real window under Xvfb and is clicked through the X server
// (xdotool: Ctrl+click on a lane, a click on "undo"); it prints a line on stdout for every branch
// it opens and every choice it refuses. What a branch shows is checked by reading its trace here
// with synclab::trace: the value left in a region, the reports, which warp steps after the cursor.
//
// The starting traces are recorded by the test: one thread after the other (SYNCLAB_SCHED=pct,
// SYNCLAB_PCT_DEPTH=1), so the lost update and the deadlock come from the choices alone.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <synclab/catch.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace tr = synclab::trace;
namespace fs = std::filesystem;

namespace {

const std::string kArt = std::string(VIZ_ARTIFACTS) + "/steer";
const std::string kSize = "1280x720";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int sh(const std::string& cmd) {
  UNSCOPED_INFO("$ " << cmd);
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

// A fresh directory for one test case.
std::string case_dir(const std::string& name) {
  const std::string d = kArt + "/" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Records PROGRAM's trace into OUT with one thread run after the other.
void record_serial(const std::string& program, const std::string& out, const std::string& env = "") {
  REQUIRE(sh("cd " + fs::path(out).parent_path().string() + " && " + env +
             " SYNCLAB_MODEL=its SYNCLAB_SCHED=pct SYNCLAB_PCT_DEPTH=1 SYNCLAB_SEED=1 SYNCLAB_TRACE=" + out + " " +
             program + " >" + out + ".log 2>&1; test -s " + out) == 0);
}

std::unique_ptr<tr::Trace> load(const std::string& path) {
  std::string err;
  auto t = tr::load(path, &err);
  INFO(path << ": " << err);
  REQUIRE(t);
  REQUIRE(!t->launches.empty());
  return t;
}

// Launch 0's WarpSteps: their cursors (index in the launch) and warps.
struct Step {
  uint64_t cursor;
  uint32_t warp;
};
std::vector<Step> steps_of(const tr::Trace& t) {
  std::vector<Step> v;
  const tr::Launch& L = t.launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (t.event(i).kind == uint8_t(tr::EventKind::WarpStep)) v.push_back({i - L.first_event, t.event(i).warp});
  return v;
}

// The value element 0 of region NAME holds at the end of launch 0 (its last RegionUpdate).
uint64_t final_value(const tr::Trace& t, const std::string& name, uint64_t element = 0) {
  int id = -1;
  for (const auto& r : t.regions)
    if (r["name"] == name) id = r["id"].get<int>();
  REQUIRE(id >= 0);
  uint64_t v = 0;
  const tr::Launch& L = t.launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && (e.aux & 0xff) == id && e.a == element) v = e.b;
  }
  return v;
}

bool has_report(const tr::Trace& t, const std::string& kind) {
  for (const auto& r : t.reports)
    if (r.contains("kind") && r["kind"] == kind) return true;
  return false;
}

// The cursor of the first event of `kind` by `warp` in launch 0.
uint64_t first_cursor(const tr::Trace& t, tr::EventKind kind, uint32_t warp) {
  const tr::Launch& L = t.launches[0];
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (t.event(i).kind == uint8_t(kind) && t.event(i).warp == warp) return i - L.first_event;
  FAIL("no such event");
  return 0;
}

// Centre of a cell of the viewer's layout at `step` (--dump-layout of a short window run).
struct Point {
  int x, y;
};
Point centre_of(const std::string& trace, const std::string& step, const std::string& id, const std::string& dir,
                const std::string& extra = "") {
  const std::string json = dir + "/layout.json";
  REQUIRE(sh(std::string(VIZ_EXE) + " " + trace + " --size " + kSize + " --step " + step +
             " --exit-after-frames 8 --dump-layout " + json + " --steer-dir " + dir + "/unused " + extra +
             " >/dev/null 2>&1") == 0);
  std::ifstream f(json);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!j.is_discarded());
  for (const auto& c : j["cells"])
    if (c["id"] == id) {
      const auto& r = c["rect"];
      return {int((r[0].get<float>() + r[2].get<float>()) / 2), int((r[1].get<float>() + r[3].get<float>()) / 2)};
    }
  FAIL("no cell " << id << " in " << json);
  return {0, 0};
}

// synclab-viz in a window, its stdout read line by line.
class Viewer {
 public:
  Viewer(const std::string& trace, const std::string& step, const std::string& steer_dir,
         const std::vector<std::string>& extra = {}) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const std::string err_path = steer_dir + ".viewer.err";
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(fds[1], 1);
      const int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (e >= 0) dup2(e, 2);
      close(fds[0]);
      std::vector<std::string> args = {VIZ_EXE, trace, "--size", kSize, "--step", step, "--steer-dir", steer_dir};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(VIZ_EXE, argv.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
    // The window, then a moment for its first frames.
    REQUIRE(sh("timeout 20 xdotool search --sync --onlyvisible --name '^SyncLab viz' >" + steer_dir +
               ".wid 2>/dev/null") == 0);
    std::istringstream(slurp(steer_dir + ".wid")) >> wid_;
    REQUIRE(!wid_.empty());
    usleep(800 * 1000);
  }
  ~Viewer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st = 0;
      waitpid(pid_, &st, 0);
    }
    if (fd_ >= 0) close(fd_);
  }
  // A click at (x, y) of the window, with Ctrl held when ctrl.
  void click(Point p, bool ctrl) {
    const std::string w = " --window " + wid_ + " ";
    REQUIRE(sh("xdotool mousemove" + w + std::to_string(p.x) + " " + std::to_string(p.y) + " sleep 0.3" +
               (ctrl ? " keydown ctrl sleep 0.1 click 1 sleep 0.1 keyup ctrl" : " click 1")) == 0);
  }
  // The next stdout line that starts with `prefix` (skipping others); "" after `seconds`.
  std::string wait_line(const std::string& prefix, double seconds = 30) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      size_t nl;
      while ((nl = buf_.find('\n')) != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        UNSCOPED_INFO("viewer: " << line);
        if (line.rfind(prefix, 0) == 0) return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, int(left.count())) <= 0) return "";
      char b[4096];
      const ssize_t n = read(fd_, b, sizeof b);
      if (n <= 0) return "";
      buf_.append(b, size_t(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string wid_, buf_;
};

// "synclab-viz: steer: branch N: PATH (launch L, event C, ...)" -> PATH
std::string branch_path(const std::string& line) {
  const size_t a = line.find(": ", std::string("synclab-viz: steer: branch").size());
  const size_t b = line.rfind(" (launch ");
  if (a == std::string::npos || b == std::string::npos || b <= a) return "";
  return line.substr(a + 2, b - a - 2);
}

}  // namespace

TEST_CASE("steer: a two-thread increment steered into the lost update; undo, redo, another choice", "[steer]") {
  const std::string d = case_dir("lost_update");
  const std::string start = d + "/start.trace";
  record_serial(STEER_LOST_UPDATE, start);
  auto t0 = load(start);
  const std::vector<Step> s0 = steps_of(*t0);
  REQUIRE(s0.size() >= 4);
  const uint32_t first = s0[0].warp, other = 1 - first;
  REQUIRE(final_value(*t0, "x") == 2);  // one increment after the other: none lost
  // After the first warp's first step (before its load), the other warp goes next.
  const uint64_t c = s0[0].cursor;
  const std::string step = std::to_string(c);
  const Point lane_other = centre_of(start, step, "lanes:" + std::to_string(other) + ":0", d);
  const Point lane_first = centre_of(start, step, "lanes:" + std::to_string(first) + ":0", d);
  const Point undo = centre_of(start, step, "steer:undo", d);
  const Point redo = centre_of(start, step, "steer:redo", d);

  Viewer v(start, step, d + "/branches");
  v.click(lane_other, true);
  const std::string b1 = v.wait_line("synclab-viz: steer: branch 1: ");
  REQUIRE(b1 != "");
  CHECK(b1.find("(launch 0, event " + step + ",") != std::string::npos);
  const std::string p1 = branch_path(b1);
  auto t1 = load(p1);
  const std::vector<Step> s1 = steps_of(*t1);
  // The same steps up to the cursor, then the chosen warp.
  size_t k = 0;
  while (k < s0.size() && s0[k].cursor <= c) {
    REQUIRE(k < s1.size());
    CHECK(s1[k].cursor == s0[k].cursor);
    CHECK(s1[k].warp == s0[k].warp);
    ++k;
  }
  REQUIRE(k < s1.size());
  CHECK(s1[k].warp == other);
  CHECK(final_value(*t1, "x") == 1);  // the lost update
  // The schedule beside it ends with the choice.
  const std::string sched = slurp(p1.substr(0, p1.size() - 6) + ".schedule");
  CHECK(sched.size() > 0);
  CHECK(sched.substr(sched.rfind("step ")) == "step " + std::to_string(other) + "\n");

  // Undo: the trace opened first, at the same event; redo: the branch again.
  v.click(undo, false);
  const std::string b0 = v.wait_line("synclab-viz: steer: branch 0: ");
  REQUIRE(b0 != "");
  CHECK(branch_path(b0) == start);
  CHECK(b0.find("(launch 0, event " + step + ")") != std::string::npos);
  v.click(redo, false);
  const std::string b1again = v.wait_line("synclab-viz: steer: branch 1: ");
  CHECK(branch_path(b1again) == p1);
  v.click(undo, false);
  REQUIRE(v.wait_line("synclab-viz: steer: branch 0: ") != "");

  // From the restored trace, the first warp keeps going instead: nothing lost, a new file.
  v.click(lane_first, true);
  const std::string b2 = v.wait_line("synclab-viz: steer: branch 1: ");
  REQUIRE(b2 != "");
  const std::string p2 = branch_path(b2);
  CHECK(p2 != p1);
  auto t2 = load(p2);
  CHECK(final_value(*t2, "x") == 2);
}

TEST_CASE("steer: Peterson v1 (lab 02) steered into its deadlock", "[steer]") {
  const std::string d = case_dir("peterson_v1");
  const std::string start = d + "/start.trace";
  record_serial(STEER_PETERSON_V1, start);
  auto t0 = load(start);
  REQUIRE(!has_report(*t0, "hang"));
  REQUIRE(!has_report(*t0, "deadlock"));
  REQUIRE(final_value(*t0, "inside") == 2);  // both critical sections ran
  const std::vector<Step> s0 = steps_of(*t0);
  const uint32_t first = s0[0].warp, other = 1 - first;
  const std::string step = std::to_string(s0[0].cursor);
  const Point lane_other = centre_of(start, step, "lanes:" + std::to_string(other) + ":0", d);

  Viewer v(start, step, d + "/branches");
  v.click(lane_other, true);
  const std::string b1 = v.wait_line("synclab-viz: steer: branch 1: ");
  REQUIRE(b1 != "");
  auto t1 = load(branch_path(b1));
  // Both raised their flags and wait for ever: the simulator reports it and no one got in.
  CHECK((has_report(*t1, "hang") || has_report(*t1, "deadlock")));
  CHECK(final_value(*t1, "flag", 0) == 1);
  CHECK(final_value(*t1, "flag", 1) == 1);
  CHECK(final_value(*t1, "inside") == 0);
}

TEST_CASE("steer: a warp that is not ready is refused with the simulator's message; the branch stays", "[steer]") {
  const std::string d = case_dir("not_ready");
  const std::string start = d + "/start.trace";
  record_serial(STEER_LOST_UPDATE, start);
  auto t0 = load(start);
  const uint32_t first = steps_of(*t0)[0].warp, other = 1 - first;
  // The first warp has exited; the other has not started.
  const std::string step = std::to_string(first_cursor(*t0, tr::EventKind::LaneExit, first));
  const Point lane_first = centre_of(start, step, "lanes:" + std::to_string(first) + ":0", d);
  const Point lane_other = centre_of(start, step, "lanes:" + std::to_string(other) + ":0", d);

  Viewer v(start, step, d + "/branches");
  v.click(lane_first, true);
  const std::string refused = v.wait_line("synclab-viz: steer: ");
  INFO(refused);
  CHECK(refused.rfind("synclab-viz: steer: re-running ", 0) == 0);
  const std::string why = v.wait_line("synclab-viz: steer: ");
  INFO(why);
  REQUIRE(why.rfind("synclab-viz: steer: refused: synclab: schedule " + d + "/branches/branch-001.schedule:", 0) == 0);
  CHECK(why.find("warp " + std::to_string(first)) != std::string::npos);
  // Still on the trace opened first: a valid choice from here makes branch 1 from it.
  v.click(lane_other, true);
  const std::string b1 = v.wait_line("synclab-viz: steer: branch 1: ");
  REQUIRE(b1 != "");
  auto t1 = load(branch_path(b1));
  CHECK(final_value(*t1, "x") == 2);
}

TEST_CASE("steer: a GPU trace, a deleted program, a rebuilt one and a filtered trace are refused with a reason",
          "[steer]") {
  const std::string d = case_dir("refusals");
  // A copy of the program records the traces, then goes away or changes.
  const std::string gone = d + "/gone_prog", changed = d + "/changed_prog";
  fs::copy_file(STEER_LOST_UPDATE, gone);
  fs::copy_file(STEER_LOST_UPDATE, changed);
  record_serial(gone, d + "/gone.trace");
  record_serial(changed, d + "/changed.trace");
  record_serial(STEER_LOST_UPDATE, d + "/filtered.trace", "SYNCLAB_TRACE_KERNELS=increment");
  fs::remove(gone);
  {
    std::ofstream f(changed, std::ios::app | std::ios::binary);
    f << '\0';  // "rebuilt": one byte more
  }
  // A GPU trace (the recorder's header says backend gpu) of two warps.
  {
    tr::Writer w;
    std::string err;
    REQUIRE(w.open(d + "/gpu.trace",
                   {{"program", STEER_LOST_UPDATE}, {"backend", "gpu"}, {"device", {{"name", "NVIDIA H100"}}}}, true,
                   tr::WriterOptions{}, &err));
    w.kernel({{"name", "increment"}, {"launch", 0}, {"grid", {2, 1, 1}}, {"block", {1, 1, 1}}, {"warps_per_block", 1}});
    w.event(tr::Event{0, 0, uint8_t(tr::EventKind::KernelBegin), tr::kAllLanes, 0, 0, 2});
    w.event(tr::Event{10, 0, uint8_t(tr::EventKind::LaneExit), 0, 0, 1, 0});
    w.event(tr::Event{20, 1, uint8_t(tr::EventKind::LaneExit), 0, 0, 1, 0});
    w.event(tr::Event{30, 0, uint8_t(tr::EventKind::KernelEnd), tr::kAllLanes, 0, 0, 0});
    w.close();
  }
  const struct {
    const char* trace;
    const char* why;
  } cases[] = {{"gone.trace", "is gone"}, {"changed.trace", "changed since it recorded this trace"},
               {"gpu.trace", "recorded on a GPU"}, {"filtered.trace", "records only some events (SYNCLAB_TRACE_KERNELS)"}};
  for (const auto& k : cases) {
    const std::string trace = d + "/" + k.trace;
    const Point lane = centre_of(trace, "first", "lanes:0:0", d);
    Viewer v(trace, "first", d + "/branches_" + k.trace);
    v.click(lane, true);
    const std::string line = v.wait_line("synclab-viz: steer: ");
    INFO(line);
    CHECK(line.rfind("synclab-viz: steer: refused: ", 0) == 0);
    CHECK(line.find(k.why) != std::string::npos);
  }
}

TEST_CASE("steer: --challenge shows the goal and says when a branch reaches it", "[steer]") {
  const std::string d = case_dir("challenge");
  const std::string start = d + "/start.trace";
  record_serial(STEER_LOST_UPDATE, start);
  auto t0 = load(start);
  const std::vector<Step> s0 = steps_of(*t0);
  const uint32_t other = 1 - s0[0].warp;
  const std::string step = std::to_string(s0[0].cursor);
  {
    std::ofstream f(d + "/lose.challenge");
    f << "lab: 01\nname: lose-an-update\ngoal: make the two increments leave x at 1\ncheck: final x == 1\n";
  }
  const std::string opt = "--challenge " + d + "/lose.challenge";
  const Point lane_other = centre_of(start, step, "lanes:" + std::to_string(other) + ":0", d, opt);
  Viewer v(start, step, d + "/branches", {"--challenge", d + "/lose.challenge"});
  const std::string before = v.wait_line("synclab-viz: challenge: ", 10);
  CHECK(before == "synclab-viz: challenge: goal not reached: x ended at 2");
  v.click(lane_other, true);
  const std::string b1 = v.wait_line("synclab-viz: steer: branch 1: ");
  REQUIRE(b1 != "");
  auto t1 = load(branch_path(b1));
  REQUIRE(final_value(*t1, "x") == 1);
  const std::string after = v.wait_line("synclab-viz: challenge: ", 10);
  INFO(after);
  CHECK(after.rfind("synclab-viz: challenge: goal reached in ", 0) == 0);
  CHECK(after.find("x ended at 1") != std::string::npos);
}
