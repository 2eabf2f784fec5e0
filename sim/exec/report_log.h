// What the simulator prints of its reports. A program that explores schedules (a lab harness, a
// test) launches the same buggy kernel hundreds of times; printing every launch's reports buries
// the one line that matters. So, by default, a report is printed the first time the process sees
// it (same kind, severity, title and source lines) and later launches' copies are counted, not
// printed; a launch's summary line is printed only with a report of its own. SYNCLAB_REPORTS=all
// prints everything. The control API still returns every launch's reports.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "sim/exec/report.h"

namespace synclab::sim {

struct LaunchResult;

class ReportLog {
 public:
  // Prints the launch's reports (and its summary) to `out`: all of them when `all`.
  void print(const LaunchResult& r, bool all, std::FILE* out);
  // Reports left unprinted because an earlier launch printed their like.
  uint64_t repeats() const { return repeats_; }

  // The identity of a report for "printed already": kind, severity, title without its numbers,
  // and every source line it names.
  static std::string key(const Report& r);

 private:
  std::unordered_map<std::string, uint64_t> seen_;
  uint64_t repeats_ = 0;
  bool told_ = false;  // the one-line note about repeats was printed
};

}  // namespace synclab::sim
