// Steering the schedule (docs/viz.md, "Steering the schedule"): at the cursor the user picks which
// warp (and under `its` which of its groups of lanes) runs next; the viewer writes the schedule
// that replays the trace up to the cursor plus that choice (synclab/trace_schedule.h), re-runs the
// trace's program under the simulator's `replay` scheduler in a child process, and opens the new
// trace at the same event. Every branch (trace and schedule) is kept in a directory; undo and redo
// move between them.
//
// The child is started with posix_spawn and polled once a frame, so the window keeps drawing while
// it runs; it is killed after a timeout. A choice the simulator cannot follow (a warp that is not
// ready, lanes that are not a group) ends the child with exit status 3 and one line
// "synclab: schedule FILE:LINE: why", which the viewer shows; the branch it was on stays open.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "viz/core/challenge.h"
#include "viz/core/model.h"

namespace synclab::viz::app {

class App;

// Why the program that recorded `m` cannot be re-run ("" when it can): a GPU trace, a trace
// written before the simulator recorded what a re-run needs, a program that is gone or was rebuilt
// since (its size or FNV-1a hash differs from the one in the trace header), or a trace that
// records only some events (SYNCLAB_TRACE_KERNELS / _BLOCKS / _RANGES / _KINDS).
std::string rerun_problem(const Model& m);

// The FNV-1a 64-bit hash of a file, as 16 hex digits, and its size; false when it cannot be read.
bool file_fnv1a(const std::string& path, std::string* hex, uint64_t* bytes);

struct SteerBranch {
  std::string trace;     // the trace file the viewer shows on this branch
  std::string schedule;  // the schedule file that made it ("" for the trace opened first)
  int launch = 0;        // where the viewer stood on it (index into Model::launches())
  uint64_t cursor = 0;
  std::string what;  // "the trace opened", "warp 1 after event 12 of launch 0"
};

class Steerer {
 public:
  // dir: where branches go ("" = a new directory synclab-steer-XXXXXX under $TMPDIR or /tmp).
  // timeout_s: a re-run that takes longer is killed.
  Steerer(std::string dir, double timeout_s = 60);
  ~Steerer();  // kills a child still running

  // Call once the App holds the trace it opened: records it as branch 0 and checks that its
  // program can be re-run.
  void start(App& app);

  // Re-runs the program: the schedule up to the cursor, then warp `warp` (under `its`, the group
  // with exactly the lanes `mask` when has_mask) issues the next step. false (and status() says
  // why) when it cannot start: a child still running, a program that cannot be re-run.
  bool choose(App& app, uint32_t warp, bool has_mask = false, uint32_t mask = 0);
  bool can_undo() const { return current_ > 0 && !running(); }
  bool can_redo() const { return current_ + 1 < branches_.size() && !running(); }
  void undo(App& app);
  void redo(App& app);

  // Each frame: polls the child; when it has ended, opens the new trace (or keeps the branch and
  // says why not).
  void poll(App& app);
  // The steering controls (a line in the Warp lanes window): status, undo, redo.
  void draw_controls(App& app);
  // The child's output after a failed re-run, in a window of its own (while open).
  void draw_output_window();

  // --challenge FILE (./synclab challenge NN NAME): its goal is shown above the lanes and checked
  // on every trace the viewer opens ("goal reached in 9 steps: x ended at 1", also on stdout).
  // false with *error when the file cannot be read.
  bool set_challenge(App& app, const std::string& path, std::string* error);
  const std::string& challenge_result() const { return challenge_text_; }

  bool running() const { return pid_ > 0; }
  bool available() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }  // why the program cannot be re-run
  const std::string& status() const { return status_; }
  bool status_is_error() const { return status_error_; }
  const std::string& dir() const { return dir_; }
  const std::vector<SteerBranch>& branches() const { return branches_; }
  size_t current() const { return current_; }

 private:
  bool open_branch(App& app, size_t index);  // loads branches_[index] into app
  void finish(App& app, int wait_status);
  void set_status(std::string s, bool error);
  void evaluate_challenge(App& app);  // after every trace opened

  std::string dir_;
  bool dir_made_ = false;
  double timeout_s_;
  std::string problem_;
  std::vector<SteerBranch> branches_;
  size_t current_ = 0;
  // The run in progress.
  pid_t pid_ = -1;
  double started_ = 0;
  SteerBranch pending_;
  std::string pending_log_;
  // What the viewer says.
  std::string status_;
  bool status_error_ = false;
  std::string output_;  // the failed child's output
  bool show_output_ = false;
  int counter_ = 0;  // branch files made so far
  bool has_challenge_ = false;
  Challenge challenge_;
  std::string challenge_text_;
  bool challenge_reached_ = false;
  int move_ = 0;  // -1: undo, +1: redo at the next poll (a window must not swap the model it draws)
};

}  // namespace synclab::viz::app
