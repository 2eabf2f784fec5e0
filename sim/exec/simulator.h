// The simulator's face towards the runtime (simcudart) and the tools: load PTX modules, manage
// device memory, launch kernels, read reports. One Simulator per process (a single virtual
// device). Thread-safety: load_module/launch are called from the runtime's device thread;
// memory() is internally locked and may be used from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sim/exec/config.h"
#include "sim/exec/memory.h"
#include "sim/exec/profile.h"
#include "sim/exec/report.h"
#include "sim/exec/report_log.h"
#include "sim/ptx/ir.h"

namespace synclab::trace {
class Writer;
}
namespace synclab::memory {
struct Execution;
}

namespace synclab::sim {

struct PerfSummary;  // perf_counters.h

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// Error raised when a module cannot be loaded (parse error, unsupported instruction, unresolved
// symbol). what() is the full message, naming the PTX line and, when known, the CUDA line.
struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LaunchParams {
  int module = -1;
  int function = -1;  // index into the module's functions (must be an .entry)
  Dim3 grid, block;
  uint64_t dynamic_shared = 0;
  std::vector<uint8_t> params;  // packed in the entry's parameter layout (Symbol::offset)
  bool cooperative = false;
};

enum class LaunchStatus {
  Success,
  InvalidConfiguration,  // zero dimension, too many threads, too much shared memory
  CooperativeTooLarge,   // cooperative launch whose grid cannot be co-resident
  Fault,                 // out-of-bounds / misaligned / invalid address
  Trap,                  // trap instruction
  Assert,                // failed device assert
  Deadlock,              // every thread blocked, none can wake
  Hang,                  // threads spin on memory nothing will change
  BudgetExhausted,       // the step budget ran out (last resort)
  LoadFailure,           // kernel's module could not be used
};
const char* launch_status_name(LaunchStatus s);

struct LaunchResult {
  LaunchStatus status = LaunchStatus::Success;
  std::string message;  // one line for cudaGetErrorString-like use when not Success
  std::vector<Report> reports;
  std::string summary;      // the checkers' one-line summary of the launch ("" when they found nothing)
  uint64_t warp_steps = 0;  // warp-instructions issued
  uint64_t thread_instructions = 0;
  double simulated_ms = 0;  // simulated time (for cudaEvent elapsed time)
  // SYNCLAB_MEMORY_CHECK=1 under relaxed: the launch's recorded execution (what the oracle checked).
  std::shared_ptr<const memory::Execution> execution;
  // SYNCLAB_PROFILE: the launch's performance counters (perf_counters.h).
  std::shared_ptr<const PerfSummary> profile;
  bool counted = false;  // the control API was counting (synclab_sim_count): its sums take this launch
};

class Scheduler;     // scheduler.h
class ObserverList;  // observer_list.h
class RunView;       // run_view.h

// What a launch gets from the layers above sim/exec, plugged in where the simulator is assembled
// (sim/simulator_instance.cpp): its scheduling policy (sim/sched/), its checkers (sim/check/), and
// the reader of schedule files.
struct SimulatorParts {
  // The policy for a launch with these settings (SYNCLAB_SCHED, replay); expected_steps: what pct
  // spreads its change points over.
  std::function<std::unique_ptr<Scheduler>(const Config&, uint64_t expected_steps)> scheduler;
  // Adds the checkers the settings ask for (SYNCLAB_CHECK) to a launch's listeners; they read the
  // run through `run`, the device memory's record of written bytes, and append to `reports`.
  std::function<void(ObserverList&, const RunView& run, DeviceMemory& memory, std::vector<Report>& reports,
                     const Config&)>
      checkers;
  Config::ScheduleLoader load_schedule;  // SYNCLAB_SCHEDULE's file
};

class Simulator {
 public:
  // The process's simulator, assembled from its parts (sim/simulator_instance.cpp).
  static Simulator& instance();
  const SimulatorParts& parts() const { return parts_; }

  Config& config() { return config_; }
  const DeviceProfile& profile() const;
  DeviceMemory& memory() { return memory_; }

  // Parses, builds the CFG, lays out and allocates the module's globals and constants, and
  // resolves every symbol. Throws LoadError. Returns the module handle.
  int load_module(std::string_view ptx_text, const std::string& origin);
  const ptx::Module& module(int handle) const;
  int find_function(int module, const std::string& name) const;
  // Address (in the device address space, which is the host's for global memory) of a
  // module-scope .global/.const variable; 0 when absent.
  uint64_t symbol_address(int module, const std::string& name, uint64_t* size = nullptr) const;

  // Runs the kernel to completion on the calling thread.
  LaunchResult launch(const LaunchParams& p);

  // Largest number of CTAs of this shape that can be resident at once on the whole device
  // (per SM limit * SM count); 0 when the block does not fit at all.
  uint32_t max_resident_ctas(const LaunchParams& p) const;
  uint32_t max_active_blocks_per_sm(int module, int function, uint32_t block_threads, uint64_t dynamic_shared) const;
  // Static shared memory of a kernel (its own variables and those of the functions it calls).
  uint64_t static_shared_bytes(int module, int function) const;

  // Where device printf output goes (default: stdout, flushed per call).
  void set_printf_sink(std::function<void(std::string_view)> sink) { printf_sink_ = std::move(sink); }
  void emit_printf(std::string_view text) const;

  // Tracing (SYNCLAB_TRACE): the open trace, opened at the first launch that asks for one; null
  // when the configuration has no trace or the file could not be written (said once on stderr).
  trace::Writer* trace_writer(const Config& cfg);
  void close_trace();
  uint64_t next_launch_index() { return launch_index_++; }
  bool module_traced(int module) { return !traced_modules_.insert(module).second; }
  // Regions registered through synclab_region (synclab/regions.h), in registration order.
  struct Region {
    uint64_t base = 0, bytes = 0;
    std::string name, kind;
    unsigned elem_bits = 0;
    std::vector<unsigned> dims;
    uint32_t id = 0;
  };
  // Returns "" or why the region is refused.
  std::string add_region(Region r);
  std::vector<Region> regions() const;
  // __shared__ arrays registered through synclab_region_shared: a variable of one kernel
  // (kernel: its mangled name) or of every kernel that has it (kernel ""), drawn per block.
  struct SharedRegion {
    std::string kernel;    // mangled .entry name, or "" for any kernel
    std::string variable;  // as in the CUDA source ("partial") or the PTX name
    uint64_t bytes = 0;
    std::string name, kind;
    unsigned elem_bits = 0;
    std::vector<unsigned> dims;
    uint32_t id = 0;
  };
  // Returns "" or why the region is refused. module/function: the kernel's, when one was named
  // (the variable must be a __shared__ variable it uses, or its extern __shared__ array); -1:
  // any loaded module's.
  std::string add_shared_region(SharedRegion r, int module, int function);
  std::vector<SharedRegion> shared_regions() const;
  // Does the PTX shared variable `symbol` have the source name `want`? ("partial" matches
  // _ZZ6reducePKiPiE7partial, i.e. reduce(int const*, int*)::partial, and itself.)
  static bool shared_name_matches(const std::string& symbol, const std::string& want);
  // Where this kernel's shared variable `want` lies in its blocks' shared memory: its offset
  // and size (0: an extern __shared__ array, sized by the launch); false when it has none.
  bool find_shared_variable(int module, int function, const std::string& want, uint64_t* offset, uint64_t* size,
                            bool* dynamic) const;

 private:
  explicit Simulator(SimulatorParts parts);
  ~Simulator();
  struct LoadedModule;
  SimulatorParts parts_;
  Config config_;
  DeviceMemory memory_;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  ReportLog report_log_;  // what has been printed of the reports (SYNCLAB_REPORTS)
  // SYNCLAB_PROFILE: a launch's counters, on stderr ("1") or appended to a file as one JSON line.
  void write_profile(const std::string& where, const PerfSummary& s);
  bool profile_error_told_ = false;
  double sim_time_ms_ = 0;
  std::unique_ptr<trace::Writer> trace_;
  bool trace_failed_ = false;
  std::string trace_path_;
  uint64_t launch_index_ = 0;
  std::set<int> traced_modules_;
  std::vector<SharedRegion> shared_regions_;
  uint32_t next_region_id_ = 0;  // Region and SharedRegion ids come from one sequence
  std::vector<Region> regions_;  // simulated time of every launch so far (%globaltimer, %clock64)
  std::function<void(std::string_view)> printf_sink_;
  mutable std::mutex mutex_;
};

}  // namespace synclab::sim
