// Schedule files: the choices a simulator run made, written so that the `replay` scheduler can
// follow them (SYNCLAB_SCHED=replay SYNCLAB_SCHEDULE=FILE; docs/simulator.md, "Replaying a
// schedule"). The viewer writes them to steer a re-run; `synclab-trace schedule` prints them.
//
// The text, one choice a line ('#' starts a comment, blank lines are ignored):
//   launch N          the choices below are for launch N of the trace (0-based; before any
//                     `launch` line: launch 0). Launches are numbered as the trace numbers them.
//   step W            trace warp W (an event's warp field: block * warps_per_block + warp in
//                     block) issues the next step; under `its` its group the round-robin policy
//                     would pick
//   step W 0xMASK     under `its`: the group of W whose lanes are exactly MASK
//   read L K          relaxed memory only: in the step of the next `step` line, lane L's load
//                     reads the K-th newest value it may read (0: the newest, memory's value)
//   then rr|random|pct  the policy once the choices run out (default rr); at most once
//   seed S            the seed of the recorded run: a launch that follows the file seeds its
//                     memory model's own choices (where a store goes, which loads run after later
//                     stores, what a load without a read line reads) with S, as the recorded run
//                     did, whatever seed the replaying program sets; at most once
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::trace {

class Trace;

struct ScheduleChoice {
  enum class Kind { Step, Read };
  Kind kind = Kind::Step;
  uint32_t warp = 0;  // Step: trace warp number
  bool has_mask = false;
  uint32_t mask = 0;  // Step with a mask: the lanes of the group
  uint32_t lane = 0;  // Read: the lane whose load is chosen
  uint32_t back = 0;  // Read: 0 = the newest value it may read, 1 the one before, ...
  int line = 0;       // line number in the file (1-based)
};

struct Schedule {
  // Choices per launch, by launch number (launches without a `launch` line stay empty).
  std::vector<std::vector<ScheduleChoice>> launches;
  std::vector<int> launch_lines;  // per launch: the line of its `launch` line (0: none)
  std::string then;               // "" (not given), "rr", "random" or "pct"
  bool has_seed = false;          // a `seed` line was given...
  uint64_t seed = 0;              // ...with this seed
  int seed_line = 0;
  int then_line = 0;
  // The number of step choices of launch n.
  size_t steps(size_t n) const;
};

// Parses a schedule file's text. On a malformed line returns false with *line (1-based) and
// *error (what is wrong, in words) set.
bool parse_schedule(const std::string& text, Schedule* out, int* line, std::string* error);

// The schedule of a whole simulator trace: every WarpStep of every launch, in order, and a
// `then` line naming the trace's scheduler. Replaying it with the trace's other settings (model,
// memory, seed, ...) gives the same events.
std::string schedule_of(const Trace& t);

// The schedule that replays launches 0..launch-1 fully and launch `launch` (an index into
// t.launches) up to and including the event at `event`, a cursor of that launch (its index
// among the launch's events, as viz/core/model.h numbers them): every WarpStep of the launch at
// or before it. Append "step W" (or "step W 0xMASK") to choose what runs next.
std::string schedule_prefix(const Trace& t, size_t launch, uint64_t event);

}  // namespace synclab::trace
