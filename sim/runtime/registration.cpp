#include "sim/runtime/registration.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "sim/exec/simulator.h"
#include "sim/ptx/ir.h"
#include "sim/runtime/device_context.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/fatbinary_reader.h"

namespace synclab::rt {

namespace {

std::string program_of(const void* addr) {
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname && *info.dli_fname) return info.dli_fname;
  return "the program";
}

uint32_t parse_target_arch(const std::string& target) {
  // ".target sm_75" (possibly "sm_90a, texmode_independent")
  size_t p = target.find("sm_");
  if (p == std::string::npos) return 0;
  return static_cast<uint32_t>(std::strtoul(target.c_str() + p + 3, nullptr, 10));
}

// Static shared memory a kernel uses: the .shared variables referenced by it and by every
// function it calls. nvcc places a kernel's __shared__ variables at module scope, so the
// module's total would overstate each kernel's share.
uint64_t kernel_static_shared(const sim::ptx::Module& m, uint32_t entry) {
  using sim::ptx::Operand;
  std::set<uint32_t> syms;
  std::vector<uint32_t> work{entry};
  std::set<uint32_t> seen{entry};
  auto note = [&](const Operand& op) {
    if ((op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Symbol) &&
        op.symbol != Operand::kNoSymbol && op.symbol < m.symbols.size()) {
      const auto& s = m.symbols[op.symbol];
      if (s.space == sim::ptx::Space::Shared && !s.is_dynamic_shared) syms.insert(op.symbol);
    }
  };
  while (!work.empty()) {
    uint32_t f = work.back();
    work.pop_back();
    if (f >= m.functions.size()) continue;
    const auto& fn = m.functions[f];
    for (const auto& ins : fn.code) {
      for (int i = 0; i < ins.ndst; ++i) note(ins.dst[i]);
      for (int i = 0; i < ins.nsrc; ++i) note(ins.src[i]);
    }
    for (const auto& cs : fn.calls) {
      for (const auto& op : cs.arg_ops) note(op);
      if (cs.callee < m.functions.size() && seen.insert(cs.callee).second) work.push_back(cs.callee);
    }
    // Function-scope .shared variables of this function.
    for (uint32_t i = 0; i < m.symbols.size(); ++i)
      if (m.symbols[i].function == int32_t(f) && m.symbols[i].space == sim::ptx::Space::Shared &&
          !m.symbols[i].is_dynamic_shared)
        syms.insert(i);
  }
  uint64_t total = 0;
  for (uint32_t i : syms) {
    uint64_t a = std::max<uint32_t>(1, m.symbols[i].align);
    total = (total + a - 1) / a * a + m.symbols[i].size;
  }
  return total;
}

KernelInfo describe_kernel(const sim::ptx::Module& m, int module, int function) {
  KernelInfo k;
  const auto& fn = m.functions[size_t(function)];
  k.module = module;
  k.function = function;
  for (uint32_t s : fn.params) {
    KernelInfo::Param p;
    if (s < m.symbols.size()) {
      p.offset = m.symbols[s].offset;
      p.size = m.symbols[s].size;
    }
    k.params.push_back(p);
  }
  k.param_bytes = fn.param_bytes;
  for (int i = 0; i < 3; ++i) {
    k.reqntid[i] = fn.reqntid[i];
    k.maxntid[i] = fn.maxntid[i];
  }
  k.static_shared = kernel_static_shared(m, uint32_t(function));
  k.local_bytes = fn.local_bytes;
  for (const auto& s : m.symbols)
    if (s.space == sim::ptx::Space::Const && s.function < 0) k.const_bytes += s.size;
  k.ptx_version = m.version_major * 10 + m.version_minor;
  k.arch = parse_target_arch(m.target);
  k.regs = static_cast<uint32_t>(std::min<size_t>(fn.regs.size(), 255));
  return k;
}

}  // namespace

Registry& Registry::instance() {
  // Never destroyed: nvcc's atexit handlers unregister fatbinaries after static destructors
  // may already have run.
  static Registry* r = new Registry();
  return *r;
}

FatbinRecord* Registry::add_fatbin(const void* wrapper) {
  auto rec = std::make_unique<FatbinRecord>();
  rec->wrapper = wrapper;
  rec->origin = program_of(wrapper);
  FatbinRecord* p = rec.get();
  std::lock_guard<std::mutex> lock(mutex_);
  fatbins_.push_back(std::move(rec));
  return p;
}

FatbinRecord* Registry::from_handle(void** handle) const {
  if (!handle) return nullptr;
  // The handle is &record->handle_slot (the first member).
  auto* rec = reinterpret_cast<FatbinRecord*>(handle);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& f : fatbins_)
    if (f.get() == rec) return rec;
  return nullptr;
}

void Registry::add_kernel(FatbinRecord* fb, const void* host_fun, const char* name) {
  auto rec = std::make_unique<KernelRecord>();
  rec->fatbin = fb;
  rec->host_fun = host_fun;
  rec->name = name ? name : "";
  std::lock_guard<std::mutex> lock(mutex_);
  KernelRecord* p = rec.get();
  kernels_.push_back(std::move(rec));
  fb->kernels.push_back(p);
  // A template kernel instantiated in several translation units shares one host stub; the
  // first registration wins (each copy of the device code is the same).
  kernel_by_host_.emplace(host_fun, p);
  kernel_handles_.emplace(p, p);
}

void Registry::add_var(FatbinRecord* fb, const void* host_var, const char* name, uint64_t size,
                       bool constant, bool managed, void** managed_slot) {
  auto rec = std::make_unique<VarRecord>();
  rec->fatbin = fb;
  rec->host_var = host_var;
  rec->name = name ? name : "";
  rec->size = size;
  rec->constant = constant;
  rec->managed = managed;
  rec->managed_slot = managed_slot;
  if (managed && managed_slot) {
    // Until the module is loaded (or when it cannot be), host accesses to the __managed__
    // variable land in a zeroed stand-in rather than dereferencing null.
    void* standin = std::calloc(1, std::max<uint64_t>(size, 16));
    *managed_slot = standin;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  VarRecord* p = rec.get();
  vars_.push_back(std::move(rec));
  fb->vars.push_back(p);
  var_by_host_.emplace(host_var, p);
}

void Registry::end_fatbin(FatbinRecord* fb) {
  std::lock_guard<std::mutex> lock(mutex_);
  fb->ended = true;
  if (device_started_ && fb->state.load() == 0 && fb->load_ticket == 0) queue_load_locked(fb);
}

void Registry::remove_fatbin(FatbinRecord* fb) {
  // Modules stay loaded (the simulator has no unload) and records stay valid: host code that
  // still runs during exit may launch or look up symbols. Only lookups by host pointer go.
  std::lock_guard<std::mutex> lock(mutex_);
  fb->unregistered = true;
}

KernelRecord* Registry::find_kernel(const void* host_fun) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernel_by_host_.find(host_fun);
  return it == kernel_by_host_.end() ? nullptr : it->second;
}

KernelRecord* Registry::kernel_from_handle(const void* handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernel_handles_.find(handle);
  return it == kernel_handles_.end() ? nullptr : it->second;
}

VarRecord* Registry::find_var(const void* host_var) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = var_by_host_.find(host_var);
  return it == var_by_host_.end() ? nullptr : it->second;
}

void Registry::queue_load_locked(FatbinRecord* fb) {
  // On the device thread (a host callback) submit() runs the load at once; the load takes no
  // lock of ours except module_mutex_, so holding mutex_ here is safe.
  fb->load_ticket = DeviceThread::instance().submit([this, fb] { load_on_device_thread(fb); });
  if (fb->load_ticket == 0) fb->load_ticket = 1;
}

void Registry::load_all_registered() {
  std::lock_guard<std::mutex> lock(mutex_);
  device_started_ = true;
  for (auto& f : fatbins_)
    if (f->ended && f->state.load() == 0 && f->load_ticket == 0) queue_load_locked(f.get());
}

void Registry::load_on_device_thread(FatbinRecord* fb) {
  if (fb->state.load(std::memory_order_acquire) != 0) return;
  sim::Simulator& sim = simulator();
  std::string origin = fb->origin;
  try {
    Fatbin parsed = parse_fatbin_wrapper(fb->wrapper);
    PtxImage img = select_ptx(parsed, profile_arch(), origin);
    if (!img.source.empty()) origin += " (" + img.source + ")";
    int module;
    {
      std::unique_lock<std::shared_mutex> lock(module_mutex_);
      module = sim.load_module(img.text, origin);
    }
    const sim::ptx::Module& m = sim.module(module);
    for (KernelRecord* k : fb->kernels) {
      int f = m.find_function(k->name);
      if (f >= 0 && m.functions[size_t(f)].is_entry) {
        k->info = describe_kernel(m, module, f);
        k->found = true;
      }
    }
    for (VarRecord* v : fb->vars) {
      uint64_t size = 0;
      uint64_t addr = sim.symbol_address(module, v->name, &size);
      v->device_address = addr;
      if (addr && size) v->size = size;
      if (addr && v->managed && v->managed_slot) *v->managed_slot = reinterpret_cast<void*>(addr);
    }
    fb->origin = origin;
    fb->module = module;
    fb->state.store(1, std::memory_order_release);
  } catch (const FatbinError& e) {
    fb->load_error = e.kind == FatbinError::Kind::Corrupt ? cudaErrorInvalidKernelImage
                                                          : cudaErrorNoKernelImageForDevice;
    fb->load_message = e.what();
    fb->state.store(2, std::memory_order_release);
  } catch (const sim::LoadError& e) {
    fb->load_error = cudaErrorInvalidPtx;
    fb->load_message = fmt::format("the simulator cannot load the device code of {}:\n{}", origin, e.what());
    fb->state.store(2, std::memory_order_release);
  } catch (const std::exception& e) {
    fb->load_error = cudaErrorInvalidPtx;
    fb->load_message = fmt::format("the simulator cannot load the device code of {}: {}", origin, e.what());
    fb->state.store(2, std::memory_order_release);
  }
}

cudaError_t Registry::ensure_loaded(FatbinRecord* fb, const char* api, bool sticky) {
  if (!fb) return cudaErrorInvalidDeviceFunction;
  if (fb->state.load(std::memory_order_acquire) == 0) {
    ensure_device_started();
    uint64_t ticket;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (fb->state.load() == 0 && fb->load_ticket == 0) queue_load_locked(fb);
      ticket = fb->load_ticket;
    }
    DeviceThread::instance().wait(ticket);
  }
  int state = fb->state.load(std::memory_order_acquire);
  if (state == 1) return cudaSuccess;
  if (state == 0) {
    // Only at process exit, when the device thread no longer takes work.
    return fail(api, cudaErrorCudartUnloading, "the runtime is shutting down");
  }
  if (!fb->message_printed.exchange(true)) diag(fmt::format("{}: {}", api, fb->load_message));
  if (sticky) {
    if (sticky_error() == cudaSuccess)
      diag(fmt::format("{}: the kernel's module could not be loaded; every later CUDA call returns {} "
                       "(a sticky error)",
                       api, error_name(fb->load_error)));
    set_sticky_error(fb->load_error);
  }
  return set_error(fb->load_error);
}

}  // namespace synclab::rt
