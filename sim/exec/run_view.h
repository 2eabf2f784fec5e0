// What a listener may read of the launch it listens to: what was launched and its shape, the run's
// clock, and the names, places and replay line its reports give, read through a const view, with
// no access to the run's state. KernelRun implements it; a listener holds a const reference and
// never a KernelRun: the init and sync checkers (sim/check/) and the trace recorder
// (trace_recorder.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/exec/config.h"
#include "sim/exec/memory.h"
#include "sim/exec/report.h"
#include "sim/exec/simulator.h"
#include "sim/exec/warp.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class ConsistencyModel;  // sim/memory/memory_model.h

// A module after loading: the IR with symbols resolved, and the addresses of its variables.
struct LoadedModuleView {
  const ptx::Module* module = nullptr;
  std::vector<uint64_t> symbol_address;               // per Module::symbols entry (global/const), else 0
  std::vector<uint64_t> static_shared;                // per function: bytes of static shared memory its kernel uses
  std::vector<std::vector<uint32_t>> shared_symbols;  // per kernel: the shared variables laid out for it
  bool reserved_smem = false;  // some code reads %reserved_smem_offset_* (cooperative groups' scratch, sm_80+)
};

// A launch's shape as the simulator lays it out.
struct LaunchShape {
  uint32_t threads_per_block = 0, warps_per_block = 0;
  uint32_t blocks_per_sm = 0;        // blocks resident on one SM at a time
  uint64_t blocks = 0;               // in the grid
  uint64_t static_shared = 0;        // the kernel's static shared memory, bytes
  uint64_t dynamic_shared_base = 0;  // where its dynamic shared memory starts
  uint64_t shared_bytes = 0;         // each block's shared memory: static, dynamic, reserved
  // sm_80+: where the shared memory the system reserves for each block starts (after the kernel's
  // own, when its code reads %reserved_smem_offset_*; 0: none reserved). It starts zeroed.
  uint64_t reserved_smem_base = 0;
};

// The key of a shared or global location for the memory model and the trace's memory-model events
// (shared memory is per block): a global address as it is; a shared one with bit 63 set, the
// block above bit 32 and the offset below.
inline uint64_t location_key(const Warp& w, uint64_t generic) {
  return generic >= kSharedWindow ? (1ull << 63) | (w.cta->linear << 32) | (generic - kSharedWindow) : generic;
}

// Where a checked access lands: shared memory (`off` in the block's shared memory) or global (`off`
// the address). False for what no checker looks at: local memory (the thread's own) and
// __constant__ variables.
inline bool checked_location(const Warp& w, uint64_t generic, bool* shared, uint64_t* off) {
  if (generic >= kSharedWindow) {
    if (generic >= kLocalWindow) return false;
    *shared = true;
    *off = generic - kSharedWindow;
    return true;
  }
  if (w.cache_kind == AllocKind::ModuleConst) return false;
  *shared = false;
  *off = generic;
  return true;
}

class RunView {
 public:
  // What was launched (grid, block, dynamic shared memory, module, kernel, cooperative or not).
  virtual const LaunchParams& launch() const = 0;
  // The module as loaded (its variables' addresses, each kernel's shared variables).
  virtual const LoadedModuleView& loaded_module() const = 0;
  // The warps resident now, in the scheduler's order.
  virtual const std::vector<Warp*>& resident_warps() const = 0;
  // Its shape and shared-memory layout.
  virtual const LaunchShape& shape() const = 0;
  // Warp steps so far: the run's clock.
  virtual uint64_t steps() const = 0;
  // The launch's PTX module (its functions, files and lines).
  virtual const ptx::Module& module() const = 0;
  // The kernel's (mangled) name, as a report gives it.
  virtual const std::string& kernel_name() const = 0;
  // The instruction executing: (function << 20) | pc.
  virtual uint32_t current_loc() const = 0;
  // Where an instruction is in the user's source (file, line, the calls it was inlined into).
  virtual SourceLoc where(const ptx::Instr& I) const = 0;
  // "block 1 thread 33 (warp 1 lane 1)".
  virtual std::string lane_name(const Warp& w, int lane) const = 0;
  // An address for a report: the allocation or variable it falls in, and the offset.
  virtual std::string describe_address(uint64_t addr, bool shared, uint64_t cta) const = 0;
  // The environment that replays this launch (SYNCLAB_MODEL=... SYNCLAB_SCHED=... ...).
  virtual std::string replay_line() const = 0;
  // The schedule's seed.
  virtual uint64_t seed() const = 0;
  // The launch's settings (warp model, scheduler, checks, report options).
  virtual const Config& config() const = 0;
  // The device memory (its allocations, and which bytes were written).
  virtual const DeviceMemory& device_memory() const = 0;
  // The relaxed memory model (sim/memory/memory_model.h) under SYNCLAB_MEMORY=relaxed, else null;
  // and which of its writes lane `lane` of the warp executing last read and last made (its
  // versions, ConsistencyModel::read_version; 0 under sc).
  virtual const ConsistencyModel* relaxed_model() const = 0;
  virtual uint64_t read_version(int lane) const = 0;
  virtual uint64_t write_version(int lane) const = 0;
  // The launch executed an mbarrier instruction.
  virtual bool mbarriers_used() const = 0;

  // The instruction at (function << 20) | pc (current_loc()'s form), or null; and where it is in
  // the user's source ({} when there is no such instruction).
  const ptx::Instr* instr_at(uint32_t loc) const {
    const ptx::Module& m = module();
    const uint32_t func = loc >> 20, pc = loc & 0xfffff;
    if (func >= m.functions.size() || pc >= m.functions[func].code.size()) return nullptr;
    return &m.functions[func].code[pc];
  }
  SourceLoc where_of(uint32_t loc) const {
    const ptx::Instr* I = instr_at(loc);
    return I ? where(*I) : SourceLoc{};
  }

 protected:
  ~RunView() = default;
};

}  // namespace synclab::sim
