// The device address space. Global allocations, mapped host memory and module variables live in
// host memory at their own addresses (unified addressing, as on CUDA). Every device access is
// checked against this table before it touches memory, so a bad pointer becomes a reported
// device fault rather than a host crash. Shared and local memory are separate per-CTA/per-thread
// buffers, addressed through windows in the generic address space (see kSharedWindow).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace synclab::sim {

// v rounded up to a multiple of a (a = 0: v).
inline uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

// Generic addresses at or above these bases (outside any x86-64 user address) map to shared and
// local memory; cvta adds/subtracts the base.
constexpr uint64_t kSharedWindow = 0x1000'0000'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x2000'0000'0000'0000ull;
constexpr uint64_t kWindowSize = 0x1000'0000'0000'0000ull;
// Device function pointers are kFunctionWindow + the function's index in its module: never 0,
// never a valid data address.
constexpr uint64_t kFunctionWindow = 0x3000'0000'0000'0000ull;
// The key under which the hang detector keeps an address's last writer: a shared-memory address
// names a word of its block's shared memory only, so each block's words get keys of their own.
inline uint64_t writer_key(uint64_t generic, uint64_t cta) {
  return generic - kSharedWindow < kWindowSize ? generic + (cta << 32) : generic;
}

enum class AllocKind { Device, HostPinned, HostMapped, ModuleGlobal, ModuleConst, Managed };
const char* alloc_kind_name(AllocKind k);
// Memory that host threads may read and write while a kernel runs (mapped pinned memory, managed
// memory): device loads, stores and atomics on it are atomic with respect to the host's.
inline bool host_visible(AllocKind k) { return k == AllocKind::HostMapped || k == AllocKind::Managed; }

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  AllocKind kind = AllocKind::Device;
  std::string name;  // "cudaMalloc #3 (1024 bytes)" or the variable's name
  uint64_t serial = 0;
  bool owned = true;  // false for registered host memory (cudaHostRegister)
};

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Zero-filled, 256-byte aligned (mapped and managed memory: 4096, whole pages). Returns nullptr
  // when size exceeds what is left.
  void* allocate(uint64_t size, AllocKind kind, const std::string& name = "");
  // false when ptr is not the base of a live allocation (double free, bad pointer).
  bool release(void* ptr);
  // Makes existing host memory addressable by kernels (cudaHostRegister) without owning it;
  // false when the range overlaps a live allocation. unregister_range forgets it again.
  bool register_range(void* ptr, uint64_t size, AllocKind kind, const std::string& name);
  bool unregister_range(void* ptr);
  // The live allocation containing [addr, addr+size), or nullptr. Thread-safe.
  const Allocation* find(uint64_t addr, uint64_t size = 1) const;
  // The live allocation starting exactly at addr.
  const Allocation* find_base(uint64_t addr) const;
  // Gives the live allocation starting at addr the program's name for it ("flags"), which the
  // reports then use ("flags (cudaMalloc #6 (20 bytes))"); false when none starts there.
  bool name_allocation(uint64_t addr, const std::string& name);
  // The live allocation with the highest base at or below addr (for "past the end" messages).
  const Allocation* nearest_below(uint64_t addr) const;
  // A freed allocation that once contained addr (for use-after-free messages), or nullptr.
  const Allocation* find_freed(uint64_t addr) const;
  uint64_t bytes_in_use() const;
  uint64_t limit() const { return limit_; }
  void set_limit(uint64_t bytes) { limit_ = bytes; }
  std::vector<Allocation> live() const;

  // initcheck: which bytes of device memory have been written (by a kernel, a copy or a memset).
  // Memory from cudaMalloc starts unwritten; the runtime marks what host copies write.
  bool initialized(uint64_t addr, uint64_t n);
  void mark_initialized(uint64_t addr, uint64_t n);
  void mark_uninitialized(uint64_t addr, uint64_t n);

 private:
  static constexpr int kInitPageShift = 16;  // 64 KiB of memory per page of bits
  uint64_t* init_page(uint64_t page, bool create);
  std::mutex init_mutex_;
  std::map<uint64_t, std::unique_ptr<uint64_t[]>> init_pages_;
  mutable std::mutex mutex_;
  std::map<uint64_t, Allocation> live_;   // by base
  std::map<uint64_t, Allocation> freed_;  // most recent freed ranges, bounded
  uint64_t in_use_ = 0;
  uint64_t limit_ = 1ull << 34;
  uint64_t serial_ = 0;
};

}  // namespace synclab::sim
