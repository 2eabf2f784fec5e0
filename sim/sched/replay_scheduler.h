// The `replay` scheduler (SYNCLAB_SCHED=replay SYNCLAB_SCHEDULE=FILE): traced launches follow the
// choices of a schedule file (synclab/trace_schedule.h gives its syntax and writes it from a
// trace), one `step` line per step, then the policy after (Config::sched) takes over.
//
// Launches are numbered as a trace numbers them: only launches that a trace records follow the
// schedule (a lab harness explores schedules untraced, then records one run); others run under
// the policy after, as the program configured it. A step runs the warp the line names; under
// `its` the group with exactly the line's lanes (without a mask: the group round robin picks);
// under `lockstep` the mask, if given, must be the warp's one group. Steps that the step loop runs
// without asking the scheduler (a burst of instructions only the warp itself can see) consume
// their lines too; a line naming another warp ends the burst there.
//
// A choice that cannot be followed ends the process with exit status 3 and one line on stderr:
// `synclab: schedule FILE:LINE: why` (line 0: the file as a whole). Choices left over when a
// launch ends, and a schedule for launches the program never recorded (said at exit), too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <synclab/trace_schedule.h>

#include "sim/memory/memory_model.h"
#include "sim/exec/scheduler.h"

namespace synclab::sim {

struct Group;

// Reads and parses FILE; on failure prints the one line and exits with 3. Registers the exit
// check for launches the program did not make.
std::shared_ptr<const trace::Schedule> load_schedule_or_exit(const std::string& path);

// Prints `synclab: schedule FILE:LINE: why` and ends the process with status 3.
[[noreturn]] void schedule_fail(const std::string& path, int line, const std::string& why);

class ReplayScheduler final : public Scheduler, public ReadChooser {
 public:
  ReplayScheduler(const Config& cfg, std::unique_ptr<Scheduler> after);
  ~ReplayScheduler() override;

  // The launch is traced (its trace number is the count of traced launches before it): from now
  // on the schedule's choices for it are followed. warps_per_block and total warps for messages.
  void begin_traced_launch(uint64_t blocks, uint32_t warps_per_block) override;
  bool replaying() const { return active_ && pos_ < choices_->size(); }
  bool follows_schedule() const override { return active_; }  // this launch has choices in the schedule

  size_t pick_warp(const std::vector<Warp*>& warps) override;
  size_t pick_group(const Warp& w, const std::vector<uint32_t>& masks, const std::vector<bool>& yielded) override;
  void on_lane_start(Warp& w, int lane) override { after_->on_lane_start(w, lane); }
  void on_step(Warp& w, uint32_t mask, uint64_t step) override;
  bool observes_steps() const override { return true; }
  bool uses_lane_priorities() const override { return after_->uses_lane_priorities(); }
  void on_spin(Warp& w, uint32_t lanes) override { after_->on_spin(w, lanes); }

  // The step loop, after the warp model chose the group `g` of the picked warp: checks it against
  // the line's mask (a converged warp, or lockstep, has one group).
  void picked(const Warp& w, const Group& g, bool lockstep) override;
  // The step loop would run the warp's next instruction at once (a private burst): true when the
  // schedule agrees (its next line is this warp and group, or it has run out), consuming the line.
  bool continue_burst(const Warp& w, const Group& g) override;

  int64_t choose_read(uint32_t lane, size_t n) override;
  bool replays() const override { return true; }
  ReadChooser* read_chooser() override { return this; }

 private:
  [[noreturn]] void fail(int line, const std::string& why) const;
  uint32_t trace_warp(const Warp& w) const;
  std::string why_not_ready(const std::vector<Warp*>& warps, uint32_t warp) const;
  std::string ready_list(const std::vector<Warp*>& warps) const;
  // Takes the read lines before the next step line into reads_; returns that step's index.
  size_t take_reads();

  const Config& cfg_;
  std::unique_ptr<Scheduler> after_;
  RoundRobinScheduler* after_rr_ = nullptr;
  bool active_ = false;  // this launch follows the schedule
  uint64_t launch_ = 0;  // its trace number
  const std::vector<trace::ScheduleChoice>* choices_ = nullptr;
  size_t pos_ = 0;                                  // next choice
  uint64_t step_ = 0;                               // steps replayed in this launch (the next step's number)
  const trace::ScheduleChoice* current_ = nullptr;  // the step line being run
  size_t current_pos_ = 0;
  bool awaiting_group_ = false;  // picked the warp; the model has not chosen its group yet
  bool handed_over_ = false;
  size_t last_index_ = 0;
  uint32_t warps_per_block_ = 1;
  uint64_t total_warps_ = 0;
  std::vector<bool> started_blocks_;
  struct PendingRead {
    uint32_t lane, back;
    int line;
  };
  std::vector<PendingRead> reads_;
};

}  // namespace synclab::sim
