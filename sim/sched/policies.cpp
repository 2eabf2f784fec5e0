// The scheduling policies (policies.h).
#include "sim/sched/policies.h"

#include <algorithm>
#include <climits>

#include "sim/exec/warp.h"
#include "sim/sched/replay_scheduler.h"

namespace synclab::sim {

namespace {

class RandomScheduler : public Scheduler {
 public:
  explicit RandomScheduler(uint64_t seed) : rng_(seed) {}
  size_t pick_warp(const std::vector<Warp*>& warps) override {
    size_t n = 0;
    for (const Warp* w : warps) n += w->runnable != 0;
    if (n == 0) return warps.size();
    size_t k = std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
    for (size_t i = 0; i < warps.size(); ++i)
      if (warps[i]->runnable && k-- == 0) return i;
    return 0;
  }
  size_t pick_group(const Warp&, const std::vector<uint32_t>& masks, const std::vector<bool>&) override {
    return std::uniform_int_distribution<size_t>(0, masks.size() - 1)(rng_);
  }

 private:
  std::mt19937_64 rng_;
};

class PctScheduler : public Scheduler {
 public:
  PctScheduler(uint64_t seed, uint32_t depth, uint64_t expected_steps) : rng_(seed) {
    uint64_t k = std::max<uint64_t>(expected_steps, 16);
    for (uint32_t i = 1; i < depth; ++i) change_points_.push_back(std::uniform_int_distribution<uint64_t>(1, k)(rng_));
    std::sort(change_points_.begin(), change_points_.end());
  }
  bool uses_lane_priorities() const override { return true; }
  bool observes_steps() const override { return true; }
  void on_lane_start(Warp& w, int lane) override {
    // Initial priorities lie above every change-point priority (which are 1..d-1).
    w.lanes[lane].pct_priority = 1000 + static_cast<int64_t>(rng_() >> 8);
    forget(w);
  }
  size_t pick_warp(const std::vector<Warp*>& warps) override {
    // The warp holding the highest priority of a runnable lane (the first such warp on ties),
    // from each warp's highest, which is kept until its runnable lanes or their priorities change.
    size_t best = 0;
    int64_t best_p = 0;
    bool found = false;
    for (size_t i = 0; i < warps.size(); ++i) {
      Warp& w = *warps[i];
      if (!w.runnable) continue;
      if (!w.pct_known || w.pct_mask != w.runnable) {
        int64_t p = INT64_MIN;
        for (uint32_t m = w.runnable; m; m &= m - 1) p = std::max(p, w.lanes[__builtin_ctz(m)].pct_priority);
        w.pct_highest = p;
        w.pct_mask = w.runnable;
        w.pct_known = true;
      }
      if (!found || w.pct_highest > best_p) {
        best = i;
        best_p = w.pct_highest;
        found = true;
      }
    }
    return found ? best : warps.size();
  }
  size_t pick_group(const Warp& w, const std::vector<uint32_t>& masks, const std::vector<bool>&) override {
    size_t best = 0;
    int64_t best_p = INT64_MIN;
    for (size_t i = 0; i < masks.size(); ++i)
      for (uint32_t m = masks[i]; m; m &= m - 1) {
        int64_t p = w.lanes[__builtin_ctz(m)].pct_priority;
        if (p > best_p) {
          best = i;
          best_p = p;
        }
      }
    return best;
  }
  void on_spin(Warp& w, uint32_t lanes) override {
    // A spinning lane waits for another: run it last (the most recently found spinner lowest),
    // as PCT assumes of a thread that yields.
    for (uint32_t m = lanes; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pct_priority = --spin_floor_;
    forget(w);
  }
  void on_step(Warp& w, uint32_t mask, uint64_t step) override {
    while (next_ < change_points_.size() && change_points_[next_] <= step) {
      // Demote the lanes that just ran below every other lane: priority d-1-i after change i.
      int64_t low = static_cast<int64_t>(change_points_.size() - next_);
      for (uint32_t m = mask; m; m &= m - 1) w.lanes[__builtin_ctz(m)].pct_priority = low;
      forget(w);
      ++next_;
    }
  }

 private:
  std::mt19937_64 rng_;
  std::vector<uint64_t> change_points_;
  size_t next_ = 0;
  int64_t spin_floor_ = 0;
  static void forget(Warp& w) { w.pct_known = false; }
};

}  // namespace

namespace {
std::unique_ptr<Scheduler> create_policy(SchedPolicy policy, const Config& cfg, uint64_t expected_steps) {
  switch (policy) {
    case SchedPolicy::RoundRobin: return std::make_unique<RoundRobinScheduler>();
    case SchedPolicy::Random: return std::make_unique<RandomScheduler>(cfg.seed);
    case SchedPolicy::Pct: return std::make_unique<PctScheduler>(cfg.seed, cfg.pct_depth, expected_steps);
  }
  return std::make_unique<RoundRobinScheduler>();
}
}  // namespace

std::unique_ptr<Scheduler> make_scheduler(const Config& cfg, uint64_t expected_steps) {
  if (cfg.replay && cfg.schedule)
    return std::make_unique<ReplayScheduler>(cfg,
                                             create_policy(cfg.replay_after.value_or(cfg.sched), cfg, expected_steps));
  return create_policy(cfg.sched, cfg, expected_steps);
}

}  // namespace synclab::sim
