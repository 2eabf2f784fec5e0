// The synclab_sim_* control API (common/include/synclab/sim_control.h): settings for the next
// launches and the reports of the last one. Settings change the simulator's Config only while
// the device thread is idle, so a running launch never sees them change. A program that reads
// the reports or chooses the checkers here judges the reports itself, so its exit status stays
// its own (sim/runtime/exit_status.h).
#define SYNCLAB_SIM_CONTROL_IMPLEMENTATION
#include "synclab/sim_control.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "sim/exec/config.h"
#include "sim/exec/profile.h"
#include "sim/runtime/device_context.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/exit_status.h"
#include "sim/runtime/registration.h"

#include <shared_mutex>

using namespace synclab::rt;
namespace sim = synclab::sim;

#define SIMCUDART_API extern "C" __attribute__((visibility("default")))

namespace {

thread_local std::string t_last_error;

int reject(const std::string& why) {
  t_last_error = why;
  diag("control API: " + why);
  return -1;
}

// Waits for queued work, then lets fn change the configuration.
template <typename Fn>
void with_idle_device(Fn fn) {
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  fn(simulator().config());
}

size_t copy_out(const std::string& s, char* buf, size_t cap) {
  if (buf && cap > 0) {
    size_t n = std::min(s.size(), cap - 1);
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  return s.size();
}

std::string profile_names() {
  std::string names;
  for (const auto& p : sim::device_profiles()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

}  // namespace

SIMCUDART_API int synclab_sim_active(void) { return 1; }

SIMCUDART_API int synclab_sim_set_model(const char* model) {
  sim::WarpModel m;
  if (!model || !sim::parse_model(model, &m))
    return reject(fmt::format("set_model(\"{}\"): expected \"its\" or \"lockstep\"", model ? model : "(null)"));
  with_idle_device([&](sim::Config& c) { c.model = m; });
  return 0;
}

SIMCUDART_API int synclab_sim_set_memory(const char* memory) {
  sim::MemoryModel m;
  if (!memory || !sim::parse_memory(memory, &m))
    return reject(fmt::format("set_memory(\"{}\"): expected \"sc\" or \"relaxed\"", memory ? memory : "(null)"));
  with_idle_device([&](sim::Config& c) { c.memory = m; });
  return 0;
}

SIMCUDART_API int synclab_sim_set_scheduler(const char* policy, uint64_t seed, unsigned pct_depth) {
  sim::SchedPolicy p;
  if (!policy || !sim::parse_sched(policy, &p))
    return reject(
        fmt::format("set_scheduler(\"{}\", ...): expected \"rr\", \"random\" or \"pct\"", policy ? policy : "(null)"));
  if (pct_depth < 1 || pct_depth > 64)
    return reject(fmt::format("set_scheduler: pct_depth {} must be between 1 and 64", pct_depth));
  with_idle_device([&](sim::Config& c) {
    c.sched = p;
    c.seed = seed;
    c.pct_depth = pct_depth;
  });
  return 0;
}

SIMCUDART_API int synclab_sim_set_device(const char* profile_name) {
  if (!profile_name || !sim::find_profile(profile_name))
    return reject(fmt::format("set_device(\"{}\"): unknown device profile; expected one of: {}",
                              profile_name ? profile_name : "(null)", profile_names()));
  with_idle_device([&](sim::Config& c) { c.device = profile_name; });
  refresh_profile();
  return 0;
}

SIMCUDART_API int synclab_sim_set_checks(const char* list) {
  exit_status_program_decides();
  if (!list) return reject("set_checks(null): expected " + sim::check_list_syntax());
  const std::string s = list;
  if (std::string why = sim::check_list_problem(s); !why.empty()) return reject("set_checks(\"" + s + "\"): " + why);
  const bool off = sim::check_list_is_none(s);
  with_idle_device([&](sim::Config& c) {
    c.checks = !off;
    c.check_list = s;
  });
  return 0;
}

SIMCUDART_API int synclab_sim_set_trace(const char* path) {
  const std::string p = path ? path : "";
  with_idle_device([&](sim::Config& c) { c.trace_path = p; });
  if (p.empty()) simulator().close_trace();
  return 0;
}

SIMCUDART_API int synclab_sim_name_allocation(const void* ptr, const char* name) {
  if (!ptr || !name || !*name) return reject("name_allocation: a device pointer and a name are needed");
  if (!simulator().memory().name_allocation(reinterpret_cast<uint64_t>(ptr), name))
    return reject(fmt::format("name_allocation(\"{}\"): no device allocation starts at {}", name, ptr));
  return 0;
}

SIMCUDART_API int synclab_sim_set_budget(uint64_t warp_steps) {
  if (warp_steps == 0) return reject("set_budget(0): the budget must be at least 1 warp-step");
  with_idle_device([&](sim::Config& c) { c.budget = warp_steps; });
  return 0;
}

SIMCUDART_API int synclab_sim_report_count(void) {
  exit_status_program_decides();
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  return int(last_reports().size());
}

SIMCUDART_API size_t synclab_sim_report_text(int index, char* buf, size_t cap) {
  exit_status_program_decides();
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  auto reports = last_reports();
  if (index < 0 || size_t(index) >= reports.size()) return copy_out("", buf, cap);
  return copy_out(reports[size_t(index)].render(), buf, cap);
}

SIMCUDART_API size_t synclab_sim_report_kind(int index, char* buf, size_t cap) {
  exit_status_program_decides();
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  auto reports = last_reports();
  if (index < 0 || size_t(index) >= reports.size()) return copy_out("", buf, cap);
  return copy_out(sim::report_kind_name(reports[size_t(index)].kind), buf, cap);
}

SIMCUDART_API void synclab_sim_clear_reports(void) {
  exit_status_program_decides();
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  clear_last_reports();
}

SIMCUDART_API size_t synclab_sim_last_error(char* buf, size_t cap) { return copy_out(t_last_error, buf, cap); }

SIMCUDART_API int synclab_sim_set_profile(const char* where) {
  const std::string w = where && *where ? where : "0";
  std::string expected;
  with_idle_device([&](sim::Config& c) { expected = c.set("SYNCLAB_PROFILE", w); });
  if (!expected.empty()) return reject(fmt::format("set_profile(\"{}\"): expected {}", w, expected));
  return 0;
}

SIMCUDART_API int synclab_sim_count(int on) {
  with_idle_device([&](sim::Config& c) {
    c.count = on != 0;
    if (on) start_counting();
  });
  return 0;
}

SIMCUDART_API int synclab_sim_counters(struct synclab_sim_counts* out) {
  if (!out) return reject("counters: a place to put them is needed");
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  return counted_so_far(out) ? 0 : -1;
}

// ---- the regions API (common/include/synclab/regions.h) ----------------------------------------
// regions.h validates the shape before calling; the simulator checks that the range is device
// memory and records the region for traces (Region chunks and RegionUpdate events).
SIMCUDART_API int synclab_sim_region(const void* ptr, size_t bytes, const char* name, const char* kind,
                                     unsigned elem_bits, unsigned ndims, const unsigned* dims) {
  if (!ptr || !name || !kind || (ndims && !dims) || ndims > 2) return reject("synclab_region: invalid arguments");
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  sim::Simulator::Region r;
  r.base = reinterpret_cast<uint64_t>(ptr);
  r.bytes = bytes;
  r.name = name;
  r.kind = kind;
  r.elem_bits = elem_bits;
  for (unsigned i = 0; i < ndims; ++i) r.dims.push_back(dims[i]);
  std::string why = simulator().add_region(r);
  if (!why.empty()) {
    std::fprintf(stderr, "synclab_region: %s\n", why.c_str());
    return reject(why);
  }
  return 0;
}

// A __shared__ array per block (synclab_region_shared): kernel is the kernel's host function (as
// passed to cudaLaunchKernel) or null for every kernel that has the variable. The simulator
// checks that the variable exists (and is large enough) and records the region for traces
// (SharedRegion chunks, per-block RegionUpdate events).
SIMCUDART_API int synclab_sim_shared_region(const void* kernel, const char* variable, size_t bytes, const char* name,
                                            const char* kind, unsigned elem_bits, unsigned ndims,
                                            const unsigned* dims) {
  if (!variable || !*variable || !name || !kind || (ndims && !dims) || ndims > 2)
    return reject("synclab_region_shared: invalid arguments");
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  sim::Simulator::SharedRegion r;
  int module = -1, function = -1;
  if (kernel) {
    KernelRecord* k = Registry::instance().find_kernel(kernel);
    if (!k) k = Registry::instance().kernel_from_handle(kernel);
    if (!k) {
      return reject(
          fmt::format("synclab_region_shared(\"{}\"): {} is not a __global__ function of this program; pass the kernel "
                      "itself (e.g. reduce) or nullptr",
                      name, kernel));
    }
    if (Registry::instance().ensure_loaded(k->fatbin, "synclab_region_shared", false) != cudaSuccess || !k->found)
      return reject(fmt::format("synclab_region_shared(\"{}\"): the kernel {} could not be loaded", name, k->display));
    r.kernel = k->name;
    module = k->info.module;
    function = k->info.function;
  }
  r.variable = variable;
  r.bytes = bytes;
  r.name = name;
  r.kind = kind;
  r.elem_bits = elem_bits;
  for (unsigned i = 0; i < ndims; ++i) r.dims.push_back(dims[i]);
  std::string why;
  {
    std::shared_lock<std::shared_mutex> lock(Registry::instance().module_mutex());
    why = simulator().add_shared_region(r, module, function);
  }
  if (!why.empty()) return reject(why);  // (reject prints it)
  return 0;
}
