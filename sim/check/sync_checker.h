// The synchronization checker (SYNCLAB_CHECK=sync): barriers that not every thread of a block
// reaches, or that threads reach at different places, and .sync warp instructions whose member
// masks cannot be met. A listener of the run (sim/exec/run_observer.h) that hears threads arrive at
// barriers and warp-synchronous instructions; each finding becomes one report per instruction and
// kind. It reads the run through RunView (sim/exec/run_view.h) and appends its reports to the
// launch's.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/exec/report.h"
#include "sim/exec/run_view.h"
#include "sim/exec/run_observer.h"
#include "sim/exec/warp.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class SyncChecker final : public RunObserver {
 public:
  // run: the launch; reports: the launch's reports, which this checker's join.
  SyncChecker(const RunView& run, std::vector<Report>& reports) : run_(run), reports_(reports) {}

  unsigned events() const override { return 0; }
  // A barrier's first arrival sets where its phase waits; a later one at another barrier, lanes of a
  // lockstep warp missing at a barrier or a warp-synchronous instruction, a lane outside its own
  // mask, and a shuffle's source outside the mask are reported. (bar.arrive, and a barrier for a
  // count of threads, may be reached at different places.)
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival& a) override;
  void member_mask(const Warp& w, int lane, uint32_t member, uint32_t here, const ptx::Instr& I,
                   bool lockstep) override;
  void shfl_outside(const Warp& w, int lane, const ptx::Instr& I, int source, uint32_t member) override;
  // How many synchronization errors it reported (each instruction and kind once).
  void count(Counts& c) const override { c.sync_errors += reported_; }

 private:
  void report(const Warp& w, int lane, const ptx::Instr& I, Severity sev, const std::string& title,
              const std::string& details);

  const RunView& run_;
  std::vector<Report>& reports_;
  std::set<std::pair<uint32_t, int>> seen_;  // (instruction, kind) already reported
  uint64_t reported_ = 0;
};

}  // namespace synclab::sim
