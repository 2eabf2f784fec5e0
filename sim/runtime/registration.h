// What nvcc's generated host code registers at start-up, and the modules behind it.
//
// Each translation unit's static constructor registers its fatbinary (__cudaRegisterFatBinary),
// then its kernels (host stub pointer -> mangled device name) and its __device__/__constant__/
// __managed__ variables (host shadow address -> device name). The Registry keeps those maps and
// loads each fatbinary's PTX into the simulator on the device thread: all of them when the
// device starts, later ones (a dlopen'ed library) when they are registered. A fatbinary that
// cannot be read or loaded keeps its error; launching one of its kernels prints the message once
// and fails with a sticky error.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace synclab::rt {

struct FatbinRecord;

// A kernel's shape, taken from the IR once its module is loaded.
struct KernelInfo {
  int module = -1;
  int function = -1;
  struct Param {
    uint64_t offset = 0, size = 0;
  };
  std::vector<Param> params;
  uint64_t param_bytes = 0;
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t maxntid[3] = {0, 0, 0};
  uint64_t static_shared = 0;  // .shared variables the kernel (and what it calls) uses
  uint64_t local_bytes = 0;
  uint64_t const_bytes = 0;  // the module's .const variables
  uint32_t ptx_version = 0;  // e.g. 90 for PTX ISA 9.0
  uint32_t arch = 0;         // e.g. 75 for .target sm_75
  uint32_t regs = 0;         // virtual registers declared (a stand-in for numRegs)
};

struct KernelRecord {
  FatbinRecord* fatbin = nullptr;
  const void* host_fun = nullptr;
  std::string name;     // mangled device name
  std::string display;  // demangled, for messages: "kernel(int*, float)"
  KernelInfo info;      // valid once the fatbinary is loaded and found == true
  bool found = false;
  // cudaFuncSetAttribute / cudaFuncSetCacheConfig settings.
  std::atomic<int> max_dynamic_shared{-1};  // -1: the default (the per-block limit)
  std::atomic<int> carveout{-1};
  std::atomic<int> cache_config{0};
};

struct VarRecord {
  FatbinRecord* fatbin = nullptr;
  const void* host_var = nullptr;  // the host shadow (or, for __managed__, the pointer slot)
  std::string name;
  uint64_t size = 0;
  bool constant = false;
  bool managed = false;
  void** managed_slot = nullptr;
  uint64_t device_address = 0;  // once loaded
};

struct FatbinRecord {
  void* handle_slot = nullptr;  // &handle_slot is the handle nvcc's code holds
  const void* wrapper = nullptr;
  std::string origin;  // "program (file.cu)" for messages
  bool ended = false;  // __cudaRegisterFatBinaryEnd seen: kernels and variables known
  bool unregistered = false;
  bool linked = false;                         // relocatable device code (-rdc): loaded joined with the others
  std::map<std::string, std::string> renamed;  // internal names the -rdc join renamed
  // Load state: written on the device thread, read after a wait on the load's ticket.
  std::atomic<int> state{0};  // 0 not loaded, 1 loaded, 2 failed
  uint64_t load_ticket = 0;   // ticket of the queued load, 0 when none is queued
  int module = -1;
  cudaError_t load_error = cudaSuccess;
  std::string load_message;
  std::atomic<bool> message_printed{false};
  std::vector<KernelRecord*> kernels;
  std::vector<VarRecord*> vars;
};

class Registry {
 public:
  static Registry& instance();

  FatbinRecord* add_fatbin(const void* wrapper, bool linked = false);
  FatbinRecord* from_handle(void** handle) const;
  void add_kernel(FatbinRecord* fb, const void* host_fun, const char* name);
  void add_var(FatbinRecord* fb, const void* host_var, const char* name, uint64_t size, bool constant, bool managed,
               void** managed_slot);
  void end_fatbin(FatbinRecord* fb);
  void remove_fatbin(FatbinRecord* fb);

  KernelRecord* find_kernel(const void* host_fun) const;
  // A cudaKernel_t handed out by __cudaGetKernel, or nullptr when it is not one of ours.
  KernelRecord* kernel_from_handle(const void* handle) const;
  VarRecord* find_var(const void* host_var) const;

  // Loads the fatbinary if needed (waiting for the device thread) and returns cudaSuccess or
  // its load error. The first failure a caller sees prints the message; `sticky` makes it
  // the device's sticky error (launches).
  cudaError_t ensure_loaded(FatbinRecord* fb, const char* api, bool sticky);

  // Queues the loads of every fatbinary registered so far (called when the device starts).
  void load_all_registered();

  // Host-side readers of simulator state (occupancy, residency) hold this shared; loads hold it
  // exclusively, so a module table never changes under a reader.
  std::shared_mutex& module_mutex() { return module_mutex_; }

 private:
  Registry() = default;
  // Queues the load of fb; for an -rdc module, of every -rdc module registered and not loaded
  // yet, joined into one module (ptx_linker.h).
  void queue_load_locked(FatbinRecord* fb);
  void load_group_on_device_thread(const std::vector<FatbinRecord*>& group);
  void resolve_records(FatbinRecord* fb, int module);
  static void fail_record(FatbinRecord* fb, cudaError_t code, const std::string& message);

  mutable std::mutex mutex_;
  std::shared_mutex module_mutex_;
  std::deque<std::unique_ptr<FatbinRecord>> fatbins_;
  std::deque<std::unique_ptr<KernelRecord>> kernels_;
  std::deque<std::unique_ptr<VarRecord>> vars_;
  std::unordered_map<const void*, KernelRecord*> kernel_by_host_;
  std::unordered_map<const void*, KernelRecord*> kernel_handles_;
  std::unordered_map<const void*, VarRecord*> var_by_host_;
  bool device_started_ = false;
};

}  // namespace synclab::rt
