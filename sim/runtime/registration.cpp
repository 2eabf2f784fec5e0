#include "sim/runtime/registration.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "sim/exec/report.h"
#include "sim/exec/simulator.h"
#include "sim/ptx/ir.h"
#include "sim/runtime/device_context.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/fatbinary_reader.h"
#include "sim/runtime/kernel_launch.h"
#include "sim/runtime/ptx_linker.h"

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
  // The simulator's own layout of the kernel's shared variables (sim/exec/simulator.cpp), so that
  // the launch checks here and the run agree on the size.
  k.static_shared = simulator().static_shared_bytes(module, function);
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

FatbinRecord* Registry::add_fatbin(const void* wrapper, bool linked) {
  auto rec = std::make_unique<FatbinRecord>();
  rec->wrapper = wrapper;
  rec->linked = linked;
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
  rec->display = sim::demangle_name(rec->name);
  std::lock_guard<std::mutex> lock(mutex_);
  KernelRecord* p = rec.get();
  kernels_.push_back(std::move(rec));
  fb->kernels.push_back(p);
  // A template kernel instantiated in several translation units shares one host stub; the
  // first registration wins (each copy of the device code is the same).
  kernel_by_host_.emplace(host_fun, p);
  kernel_handles_.emplace(p, p);
}

void Registry::add_var(FatbinRecord* fb, const void* host_var, const char* name, uint64_t size, bool constant,
                       bool managed, void** managed_slot) {
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
  // A library registered after the device started (dlopen) is loaded now. Not an -rdc module:
  // its siblings may still be registering; it is loaded, joined with them, at its first use.
  if (device_started_ && !fb->linked && fb->state.load() == 0 && fb->load_ticket == 0) queue_load_locked(fb);
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
  std::vector<FatbinRecord*> group{fb};
  if (fb->linked)
    for (auto& f : fatbins_)
      if (f.get() != fb && f->linked && f->ended && f->state.load() == 0 && f->load_ticket == 0)
        group.push_back(f.get());
  // On the device thread (a host callback) submit() runs the load at once; the load takes no
  // lock of ours except module_mutex_, so holding mutex_ here is safe.
  uint64_t ticket = DeviceThread::instance().submit([this, group] { load_group_on_device_thread(group); });
  for (FatbinRecord* f : group) f->load_ticket = ticket ? ticket : 1;
}

void Registry::load_all_registered() {
  std::lock_guard<std::mutex> lock(mutex_);
  device_started_ = true;
  for (auto& f : fatbins_)
    if (f->ended && f->state.load() == 0 && f->load_ticket == 0) queue_load_locked(f.get());
}

void Registry::fail_record(FatbinRecord* fb, cudaError_t code, const std::string& message) {
  fb->load_error = code;
  fb->load_message = message;
  fb->state.store(2, std::memory_order_release);
}

void Registry::resolve_records(FatbinRecord* fb, int module) {
  sim::Simulator& sim = simulator();
  const sim::ptx::Module& m = sim.module(module);
  auto in_module = [&](const std::string& name) {
    auto r = fb->renamed.find(name);
    return r == fb->renamed.end() ? name : r->second;
  };
  for (KernelRecord* k : fb->kernels) {
    int f = m.find_function(in_module(k->name));
    if (f >= 0 && m.functions[size_t(f)].is_entry) {
      k->info = describe_kernel(m, module, f);
      k->found = true;
    }
  }
  for (VarRecord* v : fb->vars) {
    uint64_t size = 0;
    uint64_t addr = sim.symbol_address(module, in_module(v->name), &size);
    v->device_address = addr;
    if (addr && size) v->size = size;
    if (addr && v->managed && v->managed_slot) *v->managed_slot = reinterpret_cast<void*>(addr);
  }
  fb->module = module;
  fb->state.store(1, std::memory_order_release);
}

void Registry::load_group_on_device_thread(const std::vector<FatbinRecord*>& all) {
  std::vector<FatbinRecord*> group;
  for (FatbinRecord* fb : all)
    if (fb->state.load(std::memory_order_acquire) == 0) group.push_back(fb);
  if (group.empty()) return;
  sim::Simulator& sim = simulator();
  auto fail_all = [&](cudaError_t code, const std::string& message) {
    for (FatbinRecord* fb : group) fail_record(fb, code, message);
  };

  // The PTX of each fatbinary.
  std::vector<PtxPart> parts;
  std::vector<std::string> sources;
  for (FatbinRecord* fb : group) {
    try {
      Fatbin parsed = parse_fatbin_wrapper(fb->wrapper);
      PtxImage img = select_ptx(parsed, profile_arch(), fb->origin);
      if (!img.source.empty()) {
        fb->origin += " (" + img.source + ")";
        sources.push_back(img.source);
      }
      parts.push_back({std::move(img.text), fb->origin});
    } catch (const FatbinError& e) {
      cudaError_t code =
          e.kind == FatbinError::Kind::Corrupt ? cudaErrorInvalidKernelImage : cudaErrorNoKernelImageForDevice;
      if (group.size() == 1) return fail_record(fb, code, e.what());
      return fail_all(code, fmt::format("{}\n(the -rdc modules of this program are loaded together, so none "
                                        "of them can be used)",
                                        e.what()));
    }
  }

  // One module: as it is, or the -rdc modules joined.
  std::string text, origin;
  if (group.size() == 1) {
    text = std::move(parts[0].text);
    origin = group[0]->origin;
  } else {
    try {
      LinkedPtx linked = link_ptx(parts);
      text = std::move(linked.text);
      for (size_t i = 0; i < group.size(); ++i) group[i]->renamed = std::move(linked.renamed[i]);
    } catch (const PtxLinkError& e) {
      return fail_all(cudaErrorInvalidPtx, fmt::format("joining the -rdc modules failed: {}", e.what()));
    }
    std::string list;
    for (const auto& src : sources) list += (list.empty() ? "" : ", ") + src;
    origin = fmt::format("{} (-rdc: {})", program_of(group[0]->wrapper), list.empty() ? "joined modules" : list);
  }
  int module;
  try {
    std::unique_lock<std::shared_mutex> lock(module_mutex_);
    module = sim.load_module(text, origin);
  } catch (const sim::LoadError& e) {
    std::string hint =
        group.size() > 1
            ? ""
            : (group[0]->linked ? "\n(note: with -rdc, a module registered on its own was loaded without the "
                                  "others; see the -rdc notes of synclab-nvcc --help)"
                                : "");
    return fail_all(cudaErrorInvalidPtx,
                    fmt::format("the simulator cannot load the device code of {}:\n{}{}", origin, e.what(), hint));
  } catch (const std::exception& e) {
    return fail_all(cudaErrorInvalidPtx,
                    fmt::format("the simulator cannot load the device code of {}: {}", origin, e.what()));
  }
  for (FatbinRecord* fb : group) resolve_records(fb, module);
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
      diag(
          fmt::format("{}: the kernel's module could not be loaded; every later CUDA call returns {} "
                      "(a sticky error)",
                      api, error_name(fb->load_error)));
    set_sticky_error(fb->load_error);
  }
  return set_error(fb->load_error);
}

}  // namespace synclab::rt
