// The simulator assembled: the launch machinery of sim/exec with the parts it gets from the layers
// above it, the scheduling policies (sim/sched/policies.h) and the checkers (sim/check/checkers.h).
// The process has one simulator (Simulator::instance), made at its first use.
#include "sim/check/checkers.h"
#include "sim/exec/simulator.h"
#include "sim/sched/policies.h"
#include "sim/sched/replay_scheduler.h"

namespace synclab::sim {

Simulator& Simulator::instance() {
  static Simulator* sim = new Simulator(SimulatorParts{make_scheduler, add_checkers, load_schedule_or_exit});
  return *sim;  // never destroyed: host threads may outlive main
}

}  // namespace synclab::sim
