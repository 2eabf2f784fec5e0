// What the step loop asks a scheduling policy: which resident warp issues next, and under `its`
// which of its lane groups. The policies (all deterministic functions of their seed, so a reported
// run replays exactly) are made in sim/sched/ (policies.h) and handed to each launch by the
// simulator; round robin, the default, is here so that the step loop calls it directly.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "sim/exec/config.h"
#include "sim/exec/warp.h"
#include "sim/exec/warp_model.h"
#include "sim/memory/memory_model.h"

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

  // A policy that follows a schedule file (sim/sched/replay_scheduler.h) says so, and the step
  // loop then tells it more; the defaults are those of a policy that follows none.
  virtual bool replays() const { return false; }
  // The launch is traced (launches are numbered as a trace numbers them): blocks and warps.
  virtual void begin_traced_launch(uint64_t blocks, uint32_t warps_per_block) {}
  // This launch has choices in the schedule file.
  virtual bool follows_schedule() const { return false; }
  // The step loop picked group g of warp w (lockstep: the warp's one group).
  virtual void picked(const Warp& w, const Group& g, bool lockstep) {}
  // The step loop would run the warp's next instruction at once (a private burst): true when the
  // policy agrees.
  virtual bool continue_burst(const Warp& w, const Group& g) { return true; }
  // What chooses the relaxed memory model's reads when the schedule file says (null: the model).
  virtual ReadChooser* read_chooser() { return nullptr; }
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
