// The Simulator: module loading (parse, link, allocate variables) and kernel launches.
#include "sim/exec/simulator.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <map>

#include "sim/exec/kernel_run.h"
#include "sim/ptx/parser.h"

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
  std::map<std::string, uint64_t> pct_estimates;  // kernel -> steps of its last launch
};

Simulator& Simulator::instance() {
  static Simulator* sim = new Simulator();  // never destroyed: host threads may outlive main
  return *sim;
}

Simulator::Simulator() : config_(Config::from_environment()) {
  set_printf_sink([](std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  });
}

const DeviceProfile& Simulator::profile() const {
  const DeviceProfile* p = find_profile(config_.device);
  return p ? *p : device_profiles().front();
}

void Simulator::emit_printf(std::string_view text) const {
  if (printf_sink_) printf_sink_(text);
}

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

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
        throw LoadError(fmt::format("{}:{}: the variable '{}' is declared .extern and defined nowhere in this "
                                    "module (build with -rdc and link the module that defines it)",
                                    origin, ptx_line, s.name));
      o.imm += static_cast<int64_t>(addr[o.symbol]);
      o.base = Operand::Base::Absolute;
      break;
    case Space::Shared:
    case Space::SharedCluster:
      o.imm += static_cast<int64_t>(s.is_dynamic_shared ? align_up(M.static_shared_bytes, 16) : s.offset);
      o.base = Operand::Base::Absolute;
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
      throw LoadError(fmt::format("{}:{}: the variable '{}' is in a state space the simulator does not model",
                                  origin, ptx_line, s.name));
  }
}

}  // namespace

int Simulator::load_module(std::string_view ptx_text, const std::string& origin) {
  auto lm = std::make_unique<LoadedModule>();
  try {
    lm->module = ptx::parse_module(ptx_text, origin);
  } catch (const ptx::ParseError& e) {
    throw LoadError(e.what());
  }
  ptx::Module& M = lm->module;
  M.origin = origin;
  std::vector<uint64_t>& addr = lm->view.symbol_address;
  addr.assign(M.symbols.size(), 0);
  // Allocate module-scope .global and .const variables.
  for (size_t i = 0; i < M.symbols.size(); ++i) {
    ptx::Symbol& s = M.symbols[i];
    if (s.function >= 0 || s.is_extern) continue;
    if (s.space != Space::Global && s.space != Space::Const) continue;
    const uint64_t size = s.size ? s.size : 1;
    void* p = memory_.allocate(size, s.space == Space::Const ? AllocKind::ModuleConst : AllocKind::ModuleGlobal,
                               s.name);
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
  // Resolve every symbol operand.
  for (ptx::Function& f : M.functions) {
    for (ptx::Instr& I : f.code) {
      for (int k = 0; k < I.ndst; ++k) resolve(M, addr, I.dst[k], origin, I.ptx_line);
      for (int k = 0; k < I.nsrc; ++k) resolve(M, addr, I.src[k], origin, I.ptx_line);
    }
    for (ptx::CallSite& cs : f.calls)
      for (Operand& o : cs.arg_ops) resolve(M, addr, o, origin, f.decl_line);
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
  uint64_t shared = dynamic_shared;
  if (module >= 0 && size_t(module) < modules_.size()) shared += align_up(modules_[module]->module.static_shared_bytes, 16);
  if (shared > prof.shared_per_block_optin) return 0;
  if (shared > 0) n = std::min<uint64_t>(n, prof.shared_per_sm / shared);
  return n;
}

uint32_t Simulator::max_resident_ctas(const LaunchParams& p) const {
  return max_active_blocks_per_sm(p.module, p.function, static_cast<uint32_t>(p.block.count()), p.dynamic_shared) *
         profile().sm_count;
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
  uint64_t estimate = 10000;
  if (auto it = lm.pct_estimates.find(fn.name); it != lm.pct_estimates.end()) estimate = it->second;
  Config cfg = config_;
  KernelRun run(*this, lm.view, p, cfg, profile(), estimate, static_cast<uint64_t>(sim_time_ms_ * 1e6));
  LaunchResult r = run.run();
  sim_time_ms_ += r.simulated_ms;
  if (r.status == LaunchStatus::Success) lm.pct_estimates[fn.name] = std::max<uint64_t>(r.warp_steps, 16);
  last_reports_ = r.reports;
  if (!cfg.quiet)
    for (const Report& rep : r.reports) std::fputs(rep.render().c_str(), stderr);
  return r;
}

}  // namespace synclab::sim
