// The scheduling policies (rr, random, pct; replay, which follows a schedule file and then one of
// the others), made for one launch from its settings. What the step loop asks of a policy is
// sim/exec/scheduler.h; the simulator gets its policies from here (sim/simulator_instance.cpp).
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

#include "sim/exec/config.h"
#include "sim/exec/scheduler.h"

namespace synclab::sim {

// The policy cfg.sched; under cfg.replay a ReplayScheduler that hands over to it.
std::unique_ptr<Scheduler> make_scheduler(const Config& cfg, uint64_t expected_steps);

}  // namespace synclab::sim
