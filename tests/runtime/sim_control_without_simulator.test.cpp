// sim_control.h in a program that is not linked with simcudart (as on the GPU backend, where
// NVIDIA's cudart is linked instead): the weak entry points stay null, so the wrappers say
// "not the simulator", the setters do nothing and there are no reports. This test binary links
// neither cudart nor simcudart.
#include <synclab/catch.h>

#include "synclab/sim_control.h"

TEST_CASE("without simcudart the control API is inert", "[sim_control]") {
  CHECK_FALSE(synclab::sim::active());
  const bool entry_point_is_null = synclab_sim_active == nullptr;  // the weak symbol stayed undefined
  CHECK(entry_point_is_null);
  CHECK_NOTHROW(synclab::sim::set_model("lockstep"));
  CHECK_NOTHROW(synclab::sim::set_model("no such model"));  // not validated: there is no simulator
  CHECK_NOTHROW(synclab::sim::set_scheduler("pct", 7, 3));
  CHECK_NOTHROW(synclab::sim::set_device("h100"));
  CHECK_NOTHROW(synclab::sim::set_budget(1000));
  CHECK_NOTHROW(synclab::sim::set_checks("race"));
  CHECK_NOTHROW(synclab::sim::set_trace("unused.trace"));
  CHECK(synclab::sim::report_count() == 0);
  CHECK(synclab::sim::report(0).empty());
  CHECK(synclab::sim::report_kind(0).empty());
  CHECK_NOTHROW(synclab::sim::clear_reports());
}
