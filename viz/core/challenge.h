// Challenge mode (`./synclab challenge NN NAME`, docs/labs-authoring.md "Challenges"): a lab
// scenario with a goal the user reaches by steering the schedule. This is the goal evaluator:
// a check over a loaded trace, with the step at which the goal was first reached.
//
// Checks (the `check:` of a challenge), one of:
//   final REGION == V      the region's element (REGION or REGION[i], default element 0) ends
//   final REGION != V        the launch with value V (or another value)
//   max REGION >= V        the element reaches V at some moment
//   stuck                  the launch ends in a deadlock or a hang
//   first-set REGION by warp W
//                          the first write that makes the region non-zero (a lock taken) comes
//                          from trace warp W
// REGION is a region's name as the trace's Region chunks give it (it may contain blanks).
//
// The viewer (synclab-viz --challenge FILE) and `synclab-challenge` read a challenge file:
//   lab: 01
//   name: lose-an-update
//   goal: the goal in words, shown to the user
//   check: final x == 1
// (other keys are kept in Challenge::fields and ignored).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace synclab::trace {
class Trace;
}

namespace synclab::viz {

struct ChallengeCheck {
  enum class Kind { FinalEq, FinalNe, MaxGe, Stuck, FirstSet };
  Kind kind = Kind::Stuck;
  std::string region;
  uint64_t element = 0;
  int64_t value = 0;  // FinalEq, FinalNe, MaxGe
  uint32_t warp = 0;  // FirstSet
  std::string text;   // as written
};

struct Challenge {
  std::string lab, name, goal;
  ChallengeCheck check;
  std::map<std::string, std::string> fields;  // every key of the file
};

struct ChallengeResult {
  bool reached = false;
  size_t launch = 0;    // index into Trace::launches where it was reached
  uint64_t cursor = 0;  // the event of that launch at which it was reached (viz/core/model.h cursor)
  uint64_t steps = 0;   // WarpSteps of the launch up to and including that event
  std::string what;     // reached: what happened ("x ended at 1"); else why not ("x ended at 2")
};

// Parses a check; false with a message in *error.
bool parse_challenge_check(const std::string& text, ChallengeCheck* out, std::string* error);

// Reads a challenge file; false with a message ("FILE:LINE: what") in *error.
bool load_challenge(const std::string& path, Challenge* out, std::string* error);

// Evaluates the check over every launch of the trace, in order; the first launch that reaches
// the goal gives the result. A region the trace does not have is "not reached" with a message
// that says so.
ChallengeResult evaluate_challenge(const ChallengeCheck& check, const trace::Trace& t);

// "goal reached in 9 steps: x ended at 1" or "goal not reached: x ended at 2".
std::string describe(const ChallengeResult& r);

}  // namespace synclab::viz
