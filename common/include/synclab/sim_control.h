// The simulator's control API, for tests and labs that want to steer or inspect the simulator.
//
// The same source compiles and links on both backends with nothing extra: the entry points are
// weak symbols that simcudart (the simulator's CUDA runtime) defines. Linked with NVIDIA's
// cudart they stay null, active() is false, the setters do nothing and there are no reports.
//
//   if (synclab::sim::active()) {
//     synclab::sim::set_model("lockstep");
//     synclab::sim::set_scheduler("pct", /*seed=*/7);
//   }
//   kernel<<<1, 32>>>(...);
//   cudaDeviceSynchronize();
//   for (int i = 0; i < synclab::sim::report_count(); ++i)
//     std::puts(synclab::sim::report(i).c_str());
//
// Settings apply to the launches that follow the call (earlier launches are waited for first),
// and stay in force until changed; they start from the SYNCLAB_* environment variables. The
// reports are those of the most recent kernel launch that finished; reading them waits for the
// launches already queued.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(SYNCLAB_SIM_CONTROL_IMPLEMENTATION)
#define SYNCLAB_SIM_CONTROL_WEAK
#else
#define SYNCLAB_SIM_CONTROL_WEAK __attribute__((weak))
#endif

extern "C" {
// The performance counters of the launches counted since synclab_sim_count(1) (docs/profile.md):
// requests and their 32-byte sectors (global) or wavefronts (shared), with the fewest the same
// bytes could take (ideal), atomics, warp instructions and their active lanes, barrier arrivals,
// and the waits at barriers and in spin loops.
struct synclab_sim_counts {
  uint64_t launches;
  uint64_t global_ld_requests, global_ld_sectors, global_ld_ideal;
  uint64_t global_st_requests, global_st_sectors, global_st_ideal;
  uint64_t shared_ld_requests, shared_ld_wavefronts, shared_ld_ideal;
  uint64_t shared_st_requests, shared_st_wavefronts, shared_st_ideal;
  uint64_t global_atomic_requests, global_atomic_lane_ops;
  uint64_t shared_atomic_requests, shared_atomic_lane_ops;
  uint64_t warp_instructions, thread_instructions;
  uint64_t warps_launched, barrier_arrivals;
  // Waits: barrier_wait_cycles, by the estimate's latencies, the cycles warps stood at a barrier
  // for their block's slowest warp; spin_rounds, the loop rounds that came back to their loop head
  // with every register of their thread unchanged (waiting, not working), and the thread
  // instructions those rounds issued.
  uint64_t barrier_wait_cycles, spin_rounds, spin_thread_instructions;
};
// 1 under the simulator.
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_active(void);
// The setters return 0, or -1 for an invalid value (then synclab_sim_last_error says why).
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_model(const char* model);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_memory(const char* memory);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_scheduler(const char* policy, uint64_t seed, unsigned pct_depth);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_device(const char* profile);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_budget(uint64_t warp_steps);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_checks(const char* list);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_trace(const char* path);
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_report_count(void);
// Copy up to cap-1 bytes and a NUL into buf (buf may be null when cap is 0); return the full
// length. Out-of-range indexes give 0.
SYNCLAB_SIM_CONTROL_WEAK size_t synclab_sim_report_text(int index, char* buf, size_t cap);
SYNCLAB_SIM_CONTROL_WEAK size_t synclab_sim_report_kind(int index, char* buf, size_t cap);
SYNCLAB_SIM_CONTROL_WEAK void synclab_sim_clear_reports(void);
// Name the device allocation that starts at ptr (cudaMalloc's result) as the program calls it.
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_name_allocation(const void* ptr, const char* name);
SYNCLAB_SIM_CONTROL_WEAK size_t synclab_sim_last_error(char* buf, size_t cap);
// Print each launch's performance counters on stderr ("1"), append them to a .json/.jsonl file,
// or stop ("0"), as SYNCLAB_PROFILE does.
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_set_profile(const char* where);
// on 1: count the next launches (from zero); 0: stop counting (what was counted stays readable).
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_count(int on);
// What was counted (waits for the queued launches first); -1 when nothing was ever counted.
SYNCLAB_SIM_CONTROL_WEAK int synclab_sim_counters(struct synclab_sim_counts* out);
}

// The inline wrappers (not in simcudart's own implementation file, where the entry points are
// definitions and the null checks would be pointless).
#if !defined(SYNCLAB_SIM_CONTROL_IMPLEMENTATION)
namespace synclab::sim {

namespace detail {

inline std::string fetch(size_t (*fn)(int, char*, size_t), int index) {
  if (!fn) return {};
  size_t n = fn(index, nullptr, 0);
  if (n == 0) return {};
  std::string s(n + 1, '\0');
  fn(index, s.data(), s.size());
  s.resize(n);
  return s;
}

inline void check(int rc) {
  if (rc == 0) return;
  std::string why = "synclab::sim: invalid setting";
  if (synclab_sim_last_error) {
    size_t n = synclab_sim_last_error(nullptr, 0);
    why.assign(n + 1, '\0');
    synclab_sim_last_error(why.data(), why.size());
    why.resize(n);
  }
  throw std::invalid_argument(why);
}

}  // namespace detail

// True only when the program runs on the simulator.
inline bool active() { return synclab_sim_active && synclab_sim_active() != 0; }

// "its" (Volta and later: independent thread scheduling) or "lockstep" (pre-Volta SIMT).
// Throws std::invalid_argument for any other name.
inline void set_model(const char* model) {
  if (synclab_sim_set_model) detail::check(synclab_sim_set_model(model));
}

// "sc" (every execution an interleaving) or "relaxed" (also the reorderings the PTX memory model
// allows; docs/memory-model.md). Throws std::invalid_argument for any other name.
inline void set_memory(const char* memory) {
  if (synclab_sim_set_memory) detail::check(synclab_sim_set_memory(memory));
}

// "rr", "random" or "pct" (probabilistic concurrency testing with depth pct_depth, 1..64).
inline void set_scheduler(const char* policy, uint64_t seed, unsigned pct_depth = 3) {
  if (synclab_sim_set_scheduler) detail::check(synclab_sim_set_scheduler(policy, seed, pct_depth));
}

// A device profile name ("teaching", "h100", ...). Throws std::invalid_argument for an unknown one.
inline void set_device(const char* profile) {
  if (synclab_sim_set_device) detail::check(synclab_sim_set_device(profile));
}

// Warp-steps a launch may take before the simulator gives up (the last-resort hang check).
inline void set_budget(uint64_t warp_steps) {
  if (synclab_sim_set_budget) detail::check(synclab_sim_set_budget(warp_steps));
}

// Checkers for the next launches: "all", "none", or a list such as "race,sync" (see
// docs/checkers.md). Throws std::invalid_argument for an unknown checker.
inline void set_checks(const char* list) {
  if (synclab_sim_set_checks) detail::check(synclab_sim_set_checks(list));
}

// Record the next launches into a trace file (docs/trace-format.md); "" stops recording and
// closes the file. Launches keep going into the same file until the path changes.
inline void set_trace(const char* path) {
  if (synclab_sim_set_trace) detail::check(synclab_sim_set_trace(path));
}

// "1": print each launch's performance counters on stderr (docs/profile.md); "FILE.jsonl":
// append them as JSON lines; "0": stop. Throws std::invalid_argument for anything else.
inline void set_profile(const char* where) {
  if (synclab_sim_set_profile) detail::check(synclab_sim_set_profile(where));
}
// Count the performance counters of the launches that follow (from zero), as Nsight Compute
// would on a GPU (docs/profile.md); counters() returns their sums, or false on a GPU.
inline void count(bool on) {
  if (synclab_sim_count) synclab_sim_count(on ? 1 : 0);
}
inline bool counters(synclab_sim_counts* out) { return synclab_sim_counters && synclab_sim_counters(out) == 0; }

// Reports (faults, deadlocks, hangs, races, ...) of the last finished launch; 0 on a GPU.
inline int report_count() { return synclab_sim_report_count ? synclab_sim_report_count() : 0; }
// The report's text as printed on stderr; "" when out of range.
inline std::string report(int i) { return detail::fetch(synclab_sim_report_text, i); }
// "fault", "trap", "assert", "deadlock", "hang", "budget", "race", "sync", "init", "info".
inline std::string report_kind(int i) { return detail::fetch(synclab_sim_report_kind, i); }
inline void clear_reports() {
  if (synclab_sim_clear_reports) synclab_sim_clear_reports();
}
// Reports name the allocation that starts at ptr by `name` ("polling flags (cudaMalloc #6 (20
// bytes)) + 4") instead of by cudaMalloc's count alone; nothing on a GPU.
inline void name_allocation(const void* ptr, const char* name) {
  if (synclab_sim_name_allocation) detail::check(synclab_sim_name_allocation(ptr, name));
}

}  // namespace synclab::sim
#endif  // !SYNCLAB_SIM_CONTROL_IMPLEMENTATION

#undef SYNCLAB_SIM_CONTROL_WEAK
