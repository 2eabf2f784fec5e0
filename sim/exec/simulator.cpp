// The Simulator: module loading (parse, link, allocate variables) and kernel launches.
#include "sim/exec/simulator.h"

#include "sim/exec/host_atomics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "sim/exec/kernel_run.h"
#include "sim/exec/perf_counters.h"
#include "sim/ptx/parser.h"
#include <synclab/trace_writer.h>

namespace synclab::sim {

using ptx::Operand;
using ptx::Space;

const char* launch_status_name(LaunchStatus s) {
  switch (s) {
    case LaunchStatus::Success: return "success";
    case LaunchStatus::InvalidConfiguration: return "invalid configuration";
    case LaunchStatus::CooperativeTooLarge: return "cooperative launch too large";
    case LaunchStatus::Fault: return "device fault";
    case LaunchStatus::Trap: return "trap";
    case LaunchStatus::Assert: return "device assertion";
    case LaunchStatus::Deadlock: return "deadlock";
    case LaunchStatus::Hang: return "hang";
    case LaunchStatus::BudgetExhausted: return "step budget exhausted";
    case LaunchStatus::LoadFailure: return "module load failure";
  }
  return "?";
}

struct Simulator::LoadedModule {
  ptx::Module module;
  LoadedModuleView view;
};

Simulator::Simulator(SimulatorParts parts)
    : parts_(std::move(parts)), config_(Config::from_environment(parts_.load_schedule)) {
#if defined(__GLIBC__)
  // A launch sets up and frees state of a few megabytes when many blocks are resident at once
  // (under the relaxed memory model, about 2.4 KB per thread). glibc handed that memory back to
  // the system at every launch and faulted it in again at the next: 25 times the launch's own
  // time in runs of many short launches (synclab-litmus on the h100 profile). Keep it instead.
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
#endif
  set_printf_sink([](std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  });
}

Simulator::~Simulator() = default;

const DeviceProfile& Simulator::profile() const {
  const DeviceProfile* p = find_profile(config_.device);
  return p ? *p : device_profiles().front();
}

void Simulator::emit_printf(std::string_view text) const {
  if (printf_sink_) printf_sink_(text);
}

namespace {

// Resolves a symbol reference in an operand to an address or a frame-relative offset.
void resolve(const ptx::Module& M, const std::vector<uint64_t>& addr, Operand& o, const std::string& origin,
             uint32_t ptx_line) {
  if (o.kind != Operand::Kind::Addr && o.kind != Operand::Kind::Symbol) return;
  if (o.symbol == Operand::kNoSymbol) return;
  if (o.symbol >= M.symbols.size())
    throw LoadError(fmt::format("{}:{}: internal error: symbol index out of range", origin, ptx_line));
  const ptx::Symbol& s = M.symbols[o.symbol];
  switch (s.space) {
    case Space::Global:
    case Space::Const:
      if (addr[o.symbol] == 0)
        throw LoadError(
            fmt::format("{}:{}: the variable '{}' is declared .extern and defined nowhere in this "
                        "module (build with -rdc and link the module that defines it)",
                        origin, ptx_line, s.name));
      o.imm += static_cast<int64_t>(addr[o.symbol]);
      o.base = Operand::Base::Absolute;
      break;
    case Space::Shared:
    case Space::SharedCluster:
      if (s.is_dynamic_shared) {
        o.base = Operand::Base::DynamicShared;  // starts after the launching kernel's static part
      } else {
        o.imm += static_cast<int64_t>(s.offset);
        o.base = Operand::Base::Absolute;
      }
      break;
    case Space::Local:
      o.imm += static_cast<int64_t>(s.offset);
      o.base = Operand::Base::LocalFrame;
      break;
    case Space::Param: {
      bool kernel_param = false;
      if (s.function >= 0) {
        const ptx::Function& f = M.functions[s.function];
        if (f.is_entry)
          for (uint32_t p : f.params)
            if (p == o.symbol) kernel_param = true;
      }
      o.imm += static_cast<int64_t>(s.offset);
      o.base = kernel_param ? Operand::Base::KernelParams : Operand::Base::ParamFrame;
      break;
    }
    default:
      throw LoadError(fmt::format("{}:{}: the variable '{}' is in a state space the simulator does not model", origin,
                                  ptx_line, s.name));
  }
}

// Lays out static shared memory per kernel. nvcc moves every __shared__ variable to module
// scope, so the module-wide layout of the parser would make each kernel reserve the shared
// memory of all kernels in its module (Thrust's modules exceed 48 KiB that way). Each variable
// gets one offset, valid in every kernel that reaches it through direct calls; kernels that
// share no variables overlap. static_shared[f] is then kernel f's size.
void layout_shared_memory(ptx::Module& M, std::vector<uint64_t>* static_shared,
                          std::vector<std::vector<uint32_t>>* shared_symbols) {
  const size_t nf = M.functions.size();
  std::vector<std::vector<uint32_t>> uses(nf);  // shared symbols a function names
  std::vector<std::vector<uint32_t>> callees(nf);
  std::vector<bool> indirect(nf, false);
  auto note = [&](size_t f, const Operand& o) {
    if ((o.kind == Operand::Kind::Addr || o.kind == Operand::Kind::Symbol) && o.symbol < M.symbols.size()) {
      const ptx::Symbol& s = M.symbols[o.symbol];
      if ((s.space == Space::Shared || s.space == Space::SharedCluster) && !s.is_dynamic_shared)
        uses[f].push_back(o.symbol);
    }
  };
  for (size_t f = 0; f < nf; ++f) {
    for (const ptx::Instr& I : M.functions[f].code) {
      for (int k = 0; k < I.ndst; ++k) note(f, I.dst[k]);
      for (int k = 0; k < I.nsrc; ++k) note(f, I.src[k]);
    }
    for (const ptx::CallSite& cs : M.functions[f].calls) {
      if (cs.callee < nf)
        callees[f].push_back(cs.callee);
      else
        indirect[f] = true;
      for (const Operand& o : cs.arg_ops) note(f, o);
    }
  }
  // Shared variables named in initializers (pointers to shared memory) belong to every kernel.
  std::vector<bool> everywhere(M.symbols.size(), false);
  for (const ptx::Symbol& s : M.symbols)
    for (const auto& ai : s.addr_inits)
      if (!ai.function && ai.symbol < M.symbols.size()) everywhere[ai.symbol] = true;
  // Kernels reaching each symbol.
  std::vector<std::vector<uint32_t>> kernels_of(M.symbols.size());
  for (size_t k = 0; k < nf; ++k) {
    if (!M.functions[k].is_entry) continue;
    std::vector<bool> seen(nf, false);
    std::vector<size_t> todo{k};
    bool any_indirect = false;
    while (!todo.empty()) {
      size_t f = todo.back();
      todo.pop_back();
      if (seen[f]) continue;
      seen[f] = true;
      any_indirect = any_indirect || indirect[f];
      for (uint32_t c : callees[f]) todo.push_back(c);
    }
    if (any_indirect) seen.assign(nf, true);  // a function pointer may lead anywhere
    std::vector<bool> sym_seen(M.symbols.size(), false);
    for (size_t f = 0; f < nf; ++f)
      if (seen[f])
        for (uint32_t sidx : uses[f])
          if (!sym_seen[sidx]) {
            sym_seen[sidx] = true;
            kernels_of[sidx].push_back(static_cast<uint32_t>(k));
          }
    for (size_t sidx = 0; sidx < M.symbols.size(); ++sidx)
      if (everywhere[sidx] && !sym_seen[sidx]) kernels_of[sidx].push_back(static_cast<uint32_t>(k));
  }
  std::vector<uint64_t>& end = *static_shared;
  end.assign(nf, 0);
  shared_symbols->assign(nf, {});
  for (size_t sidx = 0; sidx < M.symbols.size(); ++sidx) {
    ptx::Symbol& s = M.symbols[sidx];
    if ((s.space != Space::Shared && s.space != Space::SharedCluster) || s.is_dynamic_shared) continue;
    uint64_t off = 0;
    for (uint32_t k : kernels_of[sidx]) off = std::max(off, end[k]);
    off = align_up(off, std::max<uint32_t>(s.align, 1));
    s.offset = off;
    for (uint32_t k : kernels_of[sidx]) {
      end[k] = off + s.size;
      (*shared_symbols)[k].push_back(static_cast<uint32_t>(sidx));
    }
  }
}

}  // namespace

uint64_t Simulator::static_shared_bytes(int module, int function) const {
  if (module < 0 || size_t(module) >= modules_.size()) return 0;
  const auto& v = modules_[module]->view.static_shared;
  return function >= 0 && size_t(function) < v.size() ? v[function] : 0;
}

int Simulator::load_module(std::string_view ptx_text, const std::string& origin) {
  auto lm = std::make_unique<LoadedModule>();
  try {
    lm->module = ptx::parse_module(ptx_text, origin);
  } catch (const ptx::ParseError& e) {
    throw LoadError(e.what());
  }
  ptx::Module& M = lm->module;
  M.origin = origin;
  for (const ptx::SourceFile& f : M.files) host_atomics::known_source(f.path);
  std::vector<uint64_t>& addr = lm->view.symbol_address;
  addr.assign(M.symbols.size(), 0);
  // Allocate module-scope .global and .const variables.
  for (size_t i = 0; i < M.symbols.size(); ++i) {
    ptx::Symbol& s = M.symbols[i];
    if (s.function >= 0 || s.is_extern) continue;
    if (s.space != Space::Global && s.space != Space::Const) continue;
    const uint64_t size = s.size ? s.size : 1;
    void* p =
        memory_.allocate(size, s.space == Space::Const ? AllocKind::ModuleConst : AllocKind::ModuleGlobal, s.name);
    if (!p) throw LoadError(fmt::format("{}: cannot allocate {} bytes for the variable '{}'", origin, size, s.name));
    if (!s.init.empty()) std::memcpy(p, s.init.data(), std::min<uint64_t>(size, s.init.size()));
    addr[i] = reinterpret_cast<uint64_t>(p);
  }
  // Initializers that hold addresses of other variables.
  for (size_t i = 0; i < M.symbols.size(); ++i) {
    const ptx::Symbol& s = M.symbols[i];
    if (!addr[i]) continue;
    const uint64_t elem = std::max(4u, ptx::type_size(s.type));
    for (const auto& ai : s.addr_inits) {
      uint64_t target = 0;
      if (ai.function) {
        target = kFunctionWindow + ai.symbol;
      } else {
        target = ai.symbol < addr.size() ? addr[ai.symbol] : 0;
        const ptx::Symbol& t = M.symbols[ai.symbol];
        if (!target && t.space == Space::Shared) target = (ai.generic ? kSharedWindow : 0) + t.offset;
      }
      uint64_t v = target + static_cast<uint64_t>(ai.addend);
      const uint64_t n = std::min<uint64_t>(elem, 8);
      if (ai.offset + n <= s.size) std::memcpy(reinterpret_cast<uint8_t*>(addr[i]) + ai.offset, &v, n);
    }
  }
  layout_shared_memory(M, &lm->view.static_shared, &lm->view.shared_symbols);
  // Resolve every symbol operand.
  for (ptx::Function& f : M.functions) {
    for (ptx::Instr& I : f.code) {
      for (int k = 0; k < I.ndst; ++k) resolve(M, addr, I.dst[k], origin, I.ptx_line);
      for (int k = 0; k < I.nsrc; ++k) resolve(M, addr, I.src[k], origin, I.ptx_line);
    }
    for (ptx::CallSite& cs : f.calls)
      for (Operand& o : cs.arg_ops) resolve(M, addr, o, origin, f.decl_line);
    annotate_for_exec(f, config_.fast);
    for (const ptx::Instr& I : f.code)
      for (int k = 0; k < I.nsrc; ++k)
        if (I.src[k].kind == Operand::Kind::SpecialReg && I.src[k].sreg >= ptx::SReg::ReservedSmemBegin &&
            I.src[k].sreg <= ptx::SReg::ReservedSmemOffset1)
          lm->view.reserved_smem = true;
  }
  lm->view.module = &lm->module;
  std::lock_guard<std::mutex> lock(mutex_);
  modules_.push_back(std::move(lm));
  return static_cast<int>(modules_.size() - 1);
}

const ptx::Module& Simulator::module(int handle) const { return modules_.at(handle)->module; }

int Simulator::find_function(int module, const std::string& name) const {
  if (module < 0 || size_t(module) >= modules_.size()) return -1;
  return modules_[module]->module.find_function(name);
}

bool Simulator::find_shared_variable(int module, int function, const std::string& want, uint64_t* offset,
                                     uint64_t* size, bool* dynamic) const {
  if (module < 0 || size_t(module) >= modules_.size()) return false;
  const LoadedModule& lm = *modules_[module];
  const ptx::Module& M = lm.module;
  if (function >= 0 && size_t(function) < lm.view.shared_symbols.size())
    for (uint32_t si : lm.view.shared_symbols[size_t(function)]) {
      const ptx::Symbol& s = M.symbols[si];
      if (s.size && shared_name_matches(s.name, want)) {
        *offset = s.offset;
        *size = s.size;
        *dynamic = false;
        return true;
      }
    }
  for (const ptx::Symbol& s : M.symbols)
    if (s.is_dynamic_shared && (s.space == ptx::Space::Shared) && shared_name_matches(s.name, want)) {
      *offset = 0;  // the launch's dynamic shared memory base
      *size = 0;
      *dynamic = true;
      return true;
    }
  return false;
}

std::string Simulator::add_shared_region(SharedRegion r, int module, int function) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const SharedRegion& o : shared_regions_)
    if (o.kernel == r.kernel && o.variable == r.variable && o.bytes == r.bytes && o.name == r.name &&
        o.kind == r.kind && o.dims == r.dims)
      return "";
  // The variable must exist: in the named kernel, else in some loaded module.
  bool found = false;
  std::string sizes;
  auto check = [&](int m, int f) {
    uint64_t off = 0, size = 0;
    bool dyn = false;
    if (!find_shared_variable(m, f, r.variable, &off, &size, &dyn)) return;
    if (!dyn && size < r.bytes) {
      sizes = fmt::format("__shared__ {} has {} bytes, fewer than the region's {}", r.variable, size, r.bytes);
      return;
    }
    found = true;
  };
  if (module >= 0) {
    check(module, function);
  } else {
    for (size_t m = 0; m < modules_.size() && !found; ++m)
      for (size_t f = 0; f < modules_[m]->module.functions.size() && !found; ++f)
        if (modules_[m]->module.functions[f].is_entry) check(int(m), int(f));
  }
  if (!found) {
    if (!sizes.empty()) return fmt::format("shared region '{}': {}", r.name, sizes);
    return fmt::format(
        "shared region '{}': {} has no __shared__ variable named '{}' (name the array as declared, e.g. "
        "\"partial\" for `__shared__ int partial[256];`, or the extern __shared__ array)",
        r.name, r.kernel.empty() ? "no kernel of the program" : "the kernel " + demangle_name(r.kernel), r.variable);
  }
  if (next_region_id_ > trace::kRegionIdMask)
    return fmt::format("shared region '{}': at most {} regions (Region and shared) can be named", r.name,
                       trace::kRegionIdMask + 1);
  r.id = next_region_id_++;
  shared_regions_.push_back(r);
  if (trace_)
    trace_->shared_region(
        trace::shared_region_json(r.id, r.name, r.kind, r.variable, r.kernel, r.bytes, r.elem_bits, r.dims));
  return "";
}

uint64_t Simulator::symbol_address(int module, const std::string& name, uint64_t* size) const {
  if (module < 0 || size_t(module) >= modules_.size()) return 0;
  const LoadedModule& lm = *modules_[module];
  int i = lm.module.find_symbol(name);
  if (i < 0) return 0;
  if (size) *size = lm.module.symbols[i].size;
  return lm.view.symbol_address[i];
}

uint32_t Simulator::max_active_blocks_per_sm(int module, int function, uint32_t block_threads,
                                             uint64_t dynamic_shared) const {
  const DeviceProfile& prof = profile();
  if (block_threads == 0 || block_threads > prof.max_threads_per_block) return 0;
  const uint32_t warps = (block_threads + 31) / 32;
  uint32_t n = prof.max_ctas_per_sm;
  n = std::min(n, prof.max_warps_per_sm / warps);
  n = std::min(n, prof.max_threads_per_sm / (warps * 32));
  uint64_t shared = dynamic_shared + align_up(static_shared_bytes(module, function), 16);
  if (shared > prof.shared_per_block_optin) return 0;
  if (shared > 0) n = std::min<uint64_t>(n, prof.shared_per_sm / shared);
  return n;
}

uint32_t Simulator::max_resident_ctas(const LaunchParams& p) const {
  return max_active_blocks_per_sm(p.module, p.function, static_cast<uint32_t>(p.block.count()), p.dynamic_shared) *
         profile().sm_count;
}

void Simulator::write_profile(const std::string& where, const PerfSummary& s) {
  if (where == "1") {
    std::fputs(s.render().c_str(), stderr);
    return;
  }
  std::FILE* f = std::fopen(where.c_str(), "a");
  if (!f) {
    if (!profile_error_told_)
      std::fprintf(stderr,
                   "========= SyncLab: SYNCLAB_PROFILE=%s: cannot append to that file (%s); no counters written\n",
                   where.c_str(), std::strerror(errno));
    profile_error_told_ = true;
    return;
  }
  std::fprintf(f, "%s\n", s.json().c_str());
  std::fclose(f);
}

LaunchResult Simulator::launch(const LaunchParams& p) {
  LaunchResult bad;
  if (p.module < 0 || size_t(p.module) >= modules_.size() || p.function < 0 ||
      size_t(p.function) >= modules_[p.module]->module.functions.size()) {
    bad.status = LaunchStatus::LoadFailure;
    bad.message = "invalid kernel handle";
    return bad;
  }
  LoadedModule& lm = *modules_[p.module];
  const ptx::Function& fn = lm.module.functions[p.function];
  if (!fn.is_entry) {
    bad.status = LaunchStatus::LoadFailure;
    bad.message = fmt::format("'{}' is not a kernel (.entry)", fn.name);
    return bad;
  }
  // PCT spreads its change points over the expected length of the launch: one pass of the
  // kernel's code per warp (64 to 10000 steps). It depends on the launch alone (its kernel and
  // shape), never on what ran before in the process, so that a pct run found among many launches
  // replays with its seed in a fresh process.
  const uint64_t warps = p.grid.count() * ((p.block.count() + 31) / 32);
  const uint64_t estimate = std::clamp<uint64_t>(warps * std::max<size_t>(fn.code.size(), 1), 64, 10000);
  Config cfg = config_;
  KernelRun run(*this, lm.view, p, cfg, profile(), parts_.scheduler(cfg, estimate),
                static_cast<uint64_t>(sim_time_ms_ * 1e6));
  LaunchResult r = run.run();
  sim_time_ms_ += r.simulated_ms;
  if (!cfg.quiet) report_log_.print(r, cfg.reports_all, stderr);
  // A launch the program counts for itself (the control API's count: a harness running again what
  // it already ran, to count its atomics) is not one of the profile's: its sums go to the program.
  if (r.profile && !cfg.profile.empty() && !r.counted) write_profile(cfg.profile, *r.profile);
  return r;
}

}  // namespace synclab::sim
