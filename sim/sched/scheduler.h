// Scheduling policies: which resident warp issues next, and under `its` which of its lane groups.
// All policies are deterministic functions of their seed, so a reported run replays exactly.
//   rr      round robin over warps; inside a warp the group at the lowest PC runs, except that a
//           group that just branched backwards yields once to the others (forward progress for
//           spin loops, quick reconvergence otherwise).
//   random  a uniformly random ready warp and group at every step.
//   pct     probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
//           ASPLOS 2010): random lane priorities, d-1 priority change points spread over the
//           expected number of steps; the ready lane with the highest priority runs.
//   replay  (SYNCLAB_SCHED=replay) the choices of a schedule file, then one of the above
//           (replay_scheduler.h).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "sim/exec/config.h"
#include "sim/exec/warp.h"

namespace synclab::sim {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Index into `warps` of the warp to step: one whose `runnable` mask is not zero; warps.size()
  // when no warp can run.
  virtual size_t pick_warp(const std::vector<Warp*>& warps) = 0;
  // Under `its`: index of the group to run among `masks` (lanes per group, in PC order).
  virtual size_t pick_group(const Warp& w, const std::vector<uint32_t>& masks, const std::vector<bool>& yielded) = 0;
  // A new lane starts (CTA dispatch): policies that rank lanes give it a priority.
  virtual void on_lane_start(Warp& w, int lane) {}
  // Called once per step with the lanes that ran.
  virtual void on_step(Warp& w, uint32_t mask, uint64_t step) {}
  // Whether on_step does anything: the step loop skips the call for policies that ignore it.
  virtual bool observes_steps() const { return false; }
  virtual bool uses_lane_priorities() const { return false; }
  // Lanes found spinning (their state repeats while nothing changes): a policy that would keep
  // running them forever must let the others run.
  virtual void on_spin(Warp& w, uint32_t lanes) {}

  // The policy cfg.sched; under cfg.replay a ReplayScheduler that hands over to it.
  static std::unique_ptr<Scheduler> create(const Config& cfg, uint64_t expected_steps);
};

// Round robin over warps; lowest-PC group first inside a warp, with backward-branch yield.
// Declared here (final) so that the step loop can call it without a virtual call.
class RoundRobinScheduler final : public Scheduler {
 public:
  size_t pick_warp(const std::vector<Warp*>& warps) override {
    // One step per warp in turn: continue after the position picked last time.
    const size_t n = warps.size();
    size_t i = next_ < n ? next_ : 0;
    for (size_t k = 0; k < n; ++k, i = (i + 1 == n ? 0 : i + 1)) {
      if (warps[i]->runnable) {
        next_ = i + 1;
        return i;
      }
    }
    return n;
  }
  size_t pick_group(const Warp&, const std::vector<uint32_t>& masks, const std::vector<bool>& yielded) override {
    for (size_t i = 0; i < masks.size(); ++i)
      if (!yielded[i]) return i;
    return 0;
  }
  // Go on after the warp at position i (replay hands over to round robin).
  void continue_after(size_t i) { next_ = i + 1; }

 private:
  size_t next_ = 0;
};

}  // namespace synclab::sim
