// What the simulator tells the user: faults, deadlocks, hangs, and (later) checker findings.
// Each report renders to a stable multi-line text on stderr and is kept for the control API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::sim {

// The values are the trace's report codes (trace::ReportKindCode); 9 is kept free for traces
// written when a "mem" kind existed (nothing produced it: memory errors are faults).
enum class ReportKind { Fault = 0, Trap, Assert, Deadlock, Hang, Budget, Race, Sync, Init, Info = 10 };
enum class Severity { Error, Warning, Info };

struct SourceLoc {
  std::string file;   // CUDA source file ("" when the PTX had no line info)
  uint32_t line = 0;  // CUDA source line
  uint32_t ptx_line = 0;
  // The call sites the line was inlined into, innermost first ("lock.cu:62"): the student's own
  // loop when the line is inside a helper the compiler inlined.
  std::vector<std::string> inlined_into;
};

struct Report {
  ReportKind kind = ReportKind::Info;
  Severity severity = Severity::Error;
  std::string kernel;
  int64_t block = -1;   // linear block index, -1 when not one thread's
  int64_t thread = -1;  // linear thread index within the block
  SourceLoc where;
  std::string title;    // one line: "Deadlock: every thread is blocked"
  std::string details;  // further lines
  uint64_t seed = 0;
  std::string replay;  // how to replay: "SYNCLAB_MODEL=lockstep SYNCLAB_SCHED=pct SYNCLAB_SEED=7"
  // The threads involved (both sides of a race, the spinning lanes of a hang), for traces and
  // the visualizer; empty when only block/thread above matter.
  struct Party {
    int64_t block = -1, warp = -1, lane = -1;
    SourceLoc where;
    std::string access;  // "write", "read", "atomic", "spinning", ...
  };
  std::vector<Party> parties;

  std::string render() const;  // the stable text format
};

const char* report_kind_name(ReportKind k);

// "reduce(int*, int)" from "_Z6reducePii", "kernel(int*)::s" from a static's mangled name; the
// name itself when it is not mangled.
std::string demangle_name(const std::string& name);

// "1-3,7" (the lanes of a 32-bit mask, ranges joined), "none" for an empty mask.
std::string lane_list(uint32_t mask);
// "lane 3" or "lanes 1-3,7".
std::string lanes_phrase(uint32_t mask);

}  // namespace synclab::sim
