// The checkers a launch asks for (checkers.h).
#include "sim/check/checkers.h"

#include <memory>

#include "sim/check/init_checker.h"
#include "sim/check/race_checker.h"
#include "sim/check/sync_checker.h"

namespace synclab::sim {

void add_checkers(ObserverList& list, const RunView& run, DeviceMemory& memory, std::vector<Report>& reports,
                  const Config& cfg) {
  if (cfg.check_enabled("init")) list.add(std::make_unique<InitChecker>(run, memory, reports));
  if (cfg.check_enabled("race")) list.add(std::make_unique<RaceChecker>(run, reports));
  if (cfg.check_enabled("sync")) list.add(std::make_unique<SyncChecker>(run, reports));
}

}  // namespace synclab::sim
