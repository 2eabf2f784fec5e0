#include "sim/runtime/device_context.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>
#include <mutex>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/runtime/device_thread.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/exit_status.h"
#include "sim/runtime/registration.h"

namespace synclab::rt {

namespace {

std::once_flag g_start_once;
std::mutex g_profile_mutex;
std::deque<sim::DeviceProfile> g_profile_snapshots;  // never shrinks: references stay valid
std::atomic<const sim::DeviceProfile*> g_profile{nullptr};

std::mutex g_clock_mutex;
double g_clock_ms = 0;

std::mutex g_reports_mutex;
std::vector<sim::Report> g_reports;

bool mentions(const std::string& text, const char* word) {
  std::string lower(text.size(), ' ');
  std::transform(text.begin(), text.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return lower.find(word) != std::string::npos;
}

}  // namespace

namespace {

// SYNCLAB_CHECK=...,leak: at exit, the device and pinned allocations the program never freed.
void leak_summary_at_exit() {
  sim::Simulator& s = sim::Simulator::instance();
  if (!s.config().check_enabled("leak")) return;
  uint64_t bytes = 0;
  std::vector<sim::Allocation> leaked;
  for (const sim::Allocation& a : s.memory().live()) {
    if (!a.owned) continue;
    if (a.kind != sim::AllocKind::Device && a.kind != sim::AllocKind::HostPinned &&
        a.kind != sim::AllocKind::HostMapped && a.kind != sim::AllocKind::Managed)
      continue;
    if (a.name.find("cooperative grid barrier") != std::string::npos) continue;
    leaked.push_back(a);
    bytes += a.size;
  }
  if (leaked.empty()) {
    std::fprintf(stderr, "========= SyncLab LEAK SUMMARY: every allocation was freed\n");
    return;
  }
  std::fprintf(stderr, "========= SyncLab WARNING (leak): %zu allocation%s (%llu bytes) never freed\n", leaked.size(),
               leaked.size() == 1 ? "" : "s", static_cast<unsigned long long>(bytes));
  for (const sim::Allocation& a : leaked)
    std::fprintf(stderr, "=========     %s: %llu bytes at 0x%llx (%s)\n", a.name.c_str(),
                 static_cast<unsigned long long>(a.size), static_cast<unsigned long long>(a.base),
                 sim::alloc_kind_name(a.kind));
}

}  // namespace

void ensure_device_started() {
  std::call_once(g_start_once, [] {
    // The simulator reads SYNCLAB_* here (and exits with a message on a bad value) before the
    // device thread exists. Creating it first also means it is destroyed after the device
    // thread's exit handler has stopped the thread.
    exit_status_configure(sim::Simulator::instance().config());
    std::atexit(leak_summary_at_exit);  // after the simulator exists (a bad SYNCLAB_* exits first)
    refresh_profile();
    Registry::instance().load_all_registered();
  });
}

sim::Simulator& simulator() { return sim::Simulator::instance(); }

void refresh_profile() {
  std::lock_guard<std::mutex> lock(g_profile_mutex);
  g_profile_snapshots.push_back(sim::Simulator::instance().profile());
  g_profile.store(&g_profile_snapshots.back(), std::memory_order_release);
}

const sim::DeviceProfile& profile() {
  const sim::DeviceProfile* p = g_profile.load(std::memory_order_acquire);
  if (!p) {
    ensure_device_started();
    p = g_profile.load(std::memory_order_acquire);
  }
  return *p;
}

uint32_t profile_arch() {
  const auto& p = profile();
  return uint32_t(p.cc_major * 10 + p.cc_minor);
}

double clock_now_ms() {
  std::lock_guard<std::mutex> lock(g_clock_mutex);
  return g_clock_ms;
}

void clock_advance_ms(double ms) {
  if (!(ms > 0)) return;
  std::lock_guard<std::mutex> lock(g_clock_mutex);
  g_clock_ms += ms;
}

double copy_time_ms(uint64_t bytes, bool device_side) {
  // A simple model, documented in docs: a PCIe 4.0 x16 link (about 25 GB/s) between host and
  // device, the profile's DRAM bandwidth (2 transfers per memory clock) within the device, and
  // a few microseconds of latency per copy.
  if (device_side) {
    const auto& p = profile();
    double bytes_per_s = 2.0 * double(p.mem_clock_khz) * 1e3 * double(p.mem_bus_width) / 8.0;
    if (bytes_per_s <= 0) bytes_per_s = 100e9;
    return 0.002 + double(bytes) / bytes_per_s * 1e3;
  }
  return 0.005 + double(bytes) / 25e9 * 1e3;
}

void set_last_reports(std::vector<sim::Report> reports) {
  std::lock_guard<std::mutex> lock(g_reports_mutex);
  g_reports = std::move(reports);
}

std::vector<sim::Report> last_reports() {
  std::lock_guard<std::mutex> lock(g_reports_mutex);
  return g_reports;
}

void clear_last_reports() {
  std::lock_guard<std::mutex> lock(g_reports_mutex);
  g_reports.clear();
}

namespace {
std::mutex g_counters_mutex;
synclab_sim_counts g_counters{};
bool g_counted = false;
}  // namespace

void start_counting() {
  std::lock_guard<std::mutex> lock(g_counters_mutex);
  g_counters = synclab_sim_counts{};
  g_counted = true;
}

void add_counters(const sim::PerfSummary& s) {
  std::lock_guard<std::mutex> lock(g_counters_mutex);
  synclab_sim_counts& c = g_counters;
  ++c.launches;
  auto mem = [](const sim::PerfSummary::Memory& m, uint64_t* req, uint64_t* units, uint64_t* ideal) {
    *req += m.requests, *units += m.units, *ideal += m.ideal;
  };
  mem(s.global_ld, &c.global_ld_requests, &c.global_ld_sectors, &c.global_ld_ideal);
  mem(s.global_st, &c.global_st_requests, &c.global_st_sectors, &c.global_st_ideal);
  mem(s.shared_ld, &c.shared_ld_requests, &c.shared_ld_wavefronts, &c.shared_ld_ideal);
  mem(s.shared_st, &c.shared_st_requests, &c.shared_st_wavefronts, &c.shared_st_ideal);
  c.global_atomic_requests += s.global_atom.requests;
  c.global_atomic_lane_ops += s.global_atom.lane_ops;
  c.shared_atomic_requests += s.shared_atom.requests;
  c.shared_atomic_lane_ops += s.shared_atom.lane_ops;
  c.warp_instructions += s.warp_instructions;
  c.thread_instructions += s.thread_instructions;
  c.warps_launched += s.warps_launched;
  c.barrier_arrivals += s.barrier_arrivals;
  c.barrier_wait_cycles += s.barrier_wait_cycles;
  c.spin_rounds += s.spin_rounds;
  c.spin_thread_instructions += s.spin_thread_instructions;
}

bool counted_so_far(synclab_sim_counts* out) {
  std::lock_guard<std::mutex> lock(g_counters_mutex);
  if (!g_counted) return false;
  *out = g_counters;
  return true;
}

cudaError_t launch_status_error(const sim::LaunchResult& r, bool* sticky) {
  *sticky = true;
  switch (r.status) {
    case sim::LaunchStatus::Success: *sticky = false; return cudaSuccess;
    case sim::LaunchStatus::InvalidConfiguration: *sticky = false; return kBadLaunchConfig;
    case sim::LaunchStatus::CooperativeTooLarge: *sticky = false; return cudaErrorCooperativeLaunchTooLarge;
    case sim::LaunchStatus::Fault: {
      bool misaligned = mentions(r.message, "misaligned");
      for (const auto& rep : r.reports)
        if (rep.kind == sim::ReportKind::Fault && mentions(rep.title, "misaligned")) misaligned = true;
      return misaligned ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress;
    }
    case sim::LaunchStatus::Trap: return cudaErrorLaunchFailure;
    case sim::LaunchStatus::Assert: return cudaErrorAssert;
    case sim::LaunchStatus::Deadlock:
    case sim::LaunchStatus::Hang:
    case sim::LaunchStatus::BudgetExhausted:
      // A GPU would spin until the watchdog (or the user) killed it.
      return cudaErrorLaunchTimeout;
    case sim::LaunchStatus::LoadFailure: return cudaErrorInvalidPtx;
  }
  return cudaErrorUnknown;
}

namespace {
// A program that runs the same failing launch again and again (a lab harness exploring schedules)
// would print the same sticky-error line for each: the first is printed, the others are counted and
// summed up once when the process ends.
class RepeatedFailures {
 public:
  // Whether `line` is new (then print it); a repeat is counted.
  bool first(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [seen, more] : lines_)
      if (seen == line) {
        ++more;
        return false;
      }
    lines_.emplace_back(line, 0);
    return true;
  }
  ~RepeatedFailures() {
    for (const auto& [line, more] : lines_)
      if (more)
        diag(fmt::format("the failure above ({}) came {} more time{} in this process, each line left out",
                         line.substr(0, line.find("; every later CUDA call")), more, more == 1 ? "" : "s"));
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, int>> lines_;
};
RepeatedFailures g_repeated_failures;
}  // namespace

void finish_launch(const std::string& kernel, const sim::LaunchResult& r) {
  clock_advance_ms(r.simulated_ms);
  // The simulator has printed the reports (unless SYNCLAB_QUIET); keep them for the control API
  // and count the errors for the exit status.
  exit_status_count(r);
  set_last_reports(r.reports);
  if (r.profile && r.counted) add_counters(*r.profile);
  bool sticky = false;
  cudaError_t err = launch_status_error(r, &sticky);
  if (err == cudaSuccess) return;
  if (!sticky) {
    diag(fmt::format("launch of {} rejected: {} ({})", kernel, r.message.empty() ? error_string(err) : r.message,
                     error_name(err)));
    post_async_error(err);
    return;
  }
  bool first = sticky_error() == cudaSuccess;
  set_sticky_error(err);
  if (first) {
    const std::string line = fmt::format(
        "kernel {} failed: {}; every later CUDA call returns {} (a sticky error, as on "
        "a GPU) until cudaDeviceReset",
        kernel, r.message.empty() ? error_string(err) : r.message, error_name(err));
    if (g_repeated_failures.first(line)) diag(line);
  }
}

}  // namespace synclab::rt
