// The checkers a launch's settings ask for (SYNCLAB_CHECK: race, init, sync), made as listeners of
// the run (sim/exec/run_observer.h) and added to its list: the simulator gets them from here
// (sim/simulator_instance.cpp).
#pragma once

#include <vector>

#include "sim/exec/config.h"
#include "sim/exec/memory.h"
#include "sim/exec/report.h"
#include "sim/exec/observer_list.h"
#include "sim/exec/run_view.h"

namespace synclab::sim {

// Adds, in this order, the init, race and sync checkers that cfg enables; each reads the run through
// `run` and appends its reports to `reports` (the init checker also keeps which bytes of `memory`
// were written).
void add_checkers(ObserverList& list, const RunView& run, DeviceMemory& memory, std::vector<Report>& reports,
                  const Config& cfg);

}  // namespace synclab::sim
