// The control API from a program: on the simulator it changes settings and reads the reports of
// the last launch; on a GPU it is inert. The program runs on both.
#include "check.h"

#include <stdexcept>
#include <string>

#include "synclab/sim_control.h"

__global__ void touch(int* p, long long offset) {
  p[offset] = 1;  // REPORT-LINE
}

int main() {
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, 64 * sizeof(int)));
  if (!synclab::sim::active()) {
    CHECK_EQ_INT(synclab::sim::report_count(), 0);
    synclab::sim::set_model("lockstep");  // no-ops
    synclab::sim::set_device("h100");
    touch<<<1, 1>>>(d, 0);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_EQ_INT(synclab::sim::report_count(), 0);
    return finish("control_api");
  }

  // A clean launch: no reports.
  synclab::sim::clear_reports();
  touch<<<1, 1>>>(d, 0);
  CHECK_OK(cudaDeviceSynchronize());
  CHECK_EQ_INT(synclab::sim::report_count(), 0);

  // Bad settings are refused with a message and change nothing.
  bool threw = false;
  try {
    synclab::sim::set_model("simd");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("lockstep") != std::string::npos;
  }
  CHECK_TRUE(threw);
  threw = false;
  try {
    synclab::sim::set_device("no-such-gpu");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("teaching") != std::string::npos;  // lists the profiles
  }
  CHECK_TRUE(threw);
  threw = false;
  try {
    synclab::sim::set_scheduler("pct", 1, 0);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK_TRUE(threw);

  // Settings apply to the next launches.
  synclab::sim::set_model("lockstep");
  synclab::sim::set_scheduler("random", 42);
  synclab::sim::set_budget(1000000);
  synclab::sim::set_device("h100");
  cudaDeviceProp prop;
  CHECK_OK(cudaGetDeviceProperties(&prop, 0));
  CHECK_EQ_INT(prop.multiProcessorCount, 132);
  synclab::sim::set_device("teaching");
  CHECK_OK(cudaGetDeviceProperties(&prop, 0));
  CHECK_EQ_INT(prop.multiProcessorCount, 2);
  touch<<<1, 1>>>(d, 1);
  CHECK_OK(cudaDeviceSynchronize());

  // A faulting launch leaves one report, readable without synchronizing first.
  touch<<<1, 1>>>(d, 1 << 20);
  CHECK_EQ_INT(synclab::sim::report_count(), 1);
  CHECK_TRUE(synclab::sim::report_kind(0) == "fault");
  std::string text = synclab::sim::report(0);
  CHECK_TRUE(text.find("touch") != std::string::npos);
  CHECK_TRUE(text.find("control_api.cu:") != std::string::npos);
  CHECK_TRUE(text.find("lockstep") != std::string::npos);  // the replay line names the model
  CHECK_TRUE(synclab::sim::report(1).empty());
  CHECK_TRUE(synclab::sim::report(-1).empty());
  CHECK_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  synclab::sim::clear_reports();
  CHECK_EQ_INT(synclab::sim::report_count(), 0);
  CHECK_OK(cudaDeviceReset());
  return finish("control_api");
}
