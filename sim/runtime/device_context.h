// The simulated device as the runtime sees it: started once (simulator, device thread, module
// loads), its profile, its simulated clock (for cudaEvent timing), the reports of the last
// launch (for the control API), and the translation of a launch's outcome into CUDA errors.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "sim/exec/profile.h"
#include "sim/exec/report.h"
#include "sim/exec/perf_counters.h"
#include "sim/exec/simulator.h"
#include "synclab/sim_control.h"

namespace synclab::rt {

// Creates the simulator (reading SYNCLAB_*), starts the device thread and queues the loads of
// every registered module. Idempotent and thread-safe.
void ensure_device_started();

sim::Simulator& simulator();          // ensure_device_started() first
const sim::DeviceProfile& profile();  // the current device profile
void refresh_profile();               // after the control API changed the device
uint32_t profile_arch();              // 75 for cc 7.5

// Simulated time in milliseconds since the device started. Advanced by the device thread as
// kernels and copies complete.
double clock_now_ms();
void clock_advance_ms(double ms);
// Simulated duration of a copy of `bytes` (device_side: both ends in device memory).
double copy_time_ms(uint64_t bytes, bool device_side);

// Reports of the last finished launch.
void set_last_reports(std::vector<sim::Report> reports);
std::vector<sim::Report> last_reports();
void clear_last_reports();

// The control API's counters (synclab_sim_count): summed over the launches counted since the
// last start (LaunchResult::counted); counted_so_far false until counting was started once.
void start_counting();
void add_counters(const sim::PerfSummary& s);
bool counted_so_far(synclab_sim_counts* out);

// Called on the device thread with a finished launch: prints its reports, records them, and
// turns a failure into the sticky or asynchronous error CUDA would give.
void finish_launch(const std::string& kernel, const sim::LaunchResult& result);

// CUDA error for a launch status; *sticky says whether it poisons the device.
cudaError_t launch_status_error(const sim::LaunchResult& result, bool* sticky);

}  // namespace synclab::rt
