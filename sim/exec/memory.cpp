#include "sim/exec/memory.h"

#include <cstdlib>
#include <cstring>

namespace synclab::sim {

const char* alloc_kind_name(AllocKind k) {
  switch (k) {
    case AllocKind::Device: return "device memory (cudaMalloc)";
    case AllocKind::HostPinned: return "pinned host memory";
    case AllocKind::HostMapped: return "mapped pinned host memory";
    case AllocKind::ModuleGlobal: return "__device__ variable";
    case AllocKind::ModuleConst: return "__constant__ variable";
    case AllocKind::Managed: return "managed memory (cudaMallocManaged)";
  }
  return "?";
}

DeviceMemory::~DeviceMemory() {
  // Memory still allocated at exit is released by the OS; module variables live as long as the
  // process. Nothing to do: freeing here could race with host threads still reading mapped memory.
}

void* DeviceMemory::allocate(uint64_t size, AllocKind kind, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (size > limit_ || in_use_ + size > limit_) return nullptr;
  // Memory host threads use while kernels run gets pages of its own, so that the host watch
  // (host_watch.h) can watch it page by page without catching the host's other data.
  const uint64_t align = host_visible(kind) ? 4096 : 256;
  uint64_t rounded = (size + align - 1) / align * align;
  if (rounded == 0) rounded = align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) return nullptr;
  std::memset(p, 0, rounded);
  Allocation a;
  a.base = reinterpret_cast<uint64_t>(p);
  a.size = size;
  a.kind = kind;
  a.serial = ++serial_;
  a.name = name.empty() ? std::string("allocation #") + std::to_string(a.serial) : name;
  in_use_ += size;
  // A new block may reuse the address of a freed one: forget the freed record there.
  auto it = freed_.lower_bound(a.base);
  while (it != freed_.end() && it->first < a.base + rounded) it = freed_.erase(it);
  live_[a.base] = a;
  // Only cudaMalloc memory starts uninitialized for the init checker: host stores into host and
  // managed memory are plain memory writes the simulator does not see.
  if (kind == AllocKind::Device)
    mark_uninitialized(a.base, rounded);
  else
    mark_initialized(a.base, rounded);
  return p;
}

uint64_t* DeviceMemory::init_page(uint64_t page, bool create) {
  thread_local uint64_t cached_page = ~0ull;
  thread_local uint64_t* cached_bits = nullptr;
  thread_local const DeviceMemory* cached_owner = nullptr;
  if (page == cached_page && cached_owner == this) return cached_bits;
  std::lock_guard<std::mutex> lock(init_mutex_);
  auto it = init_pages_.find(page);
  if (it == init_pages_.end()) {
    if (!create) return nullptr;
    it = init_pages_.emplace(page, std::unique_ptr<uint64_t[]>(new uint64_t[(1u << kInitPageShift) / 64]())).first;
  }
  cached_page = page;
  cached_bits = it->second.get();
  cached_owner = this;
  return cached_bits;
}

bool DeviceMemory::initialized(uint64_t addr, uint64_t n) {
  for (uint64_t b = addr; b < addr + n; ++b) {
    uint64_t* bits = init_page(b >> kInitPageShift, false);
    if (!bits) return false;
    const uint64_t i = b & ((1u << kInitPageShift) - 1);
    if (!(bits[i / 64] >> (i % 64) & 1)) return false;
  }
  return true;
}

void DeviceMemory::mark_initialized(uint64_t addr, uint64_t n) {
  for (uint64_t b = addr; b < addr + n;) {
    uint64_t* bits = init_page(b >> kInitPageShift, true);
    const uint64_t i = b & ((1u << kInitPageShift) - 1);
    if (i % 64 == 0 && addr + n - b >= 64) {
      bits[i / 64] = ~0ull;
      b += 64;
    } else {
      bits[i / 64] |= 1ull << (i % 64);
      ++b;
    }
  }
}

void DeviceMemory::mark_uninitialized(uint64_t addr, uint64_t n) {
  for (uint64_t b = addr; b < addr + n;) {
    uint64_t* bits = init_page(b >> kInitPageShift, false);
    const uint64_t i = b & ((1u << kInitPageShift) - 1);
    if (!bits) {  // nothing recorded on this page
      b = ((b >> kInitPageShift) + 1) << kInitPageShift;
      continue;
    }
    if (i % 64 == 0 && addr + n - b >= 64) {
      bits[i / 64] = 0;
      b += 64;
    } else {
      bits[i / 64] &= ~(1ull << (i % 64));
      ++b;
    }
  }
}

bool DeviceMemory::register_range(void* ptr, uint64_t size, AllocKind kind, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t base = reinterpret_cast<uint64_t>(ptr);
  if (size == 0) return false;
  auto it = live_.upper_bound(base + size - 1);
  if (it != live_.begin()) {
    const Allocation& prev = std::prev(it)->second;
    if (prev.base + prev.size > base) return false;  // overlaps
  }
  Allocation a;
  a.base = base;
  a.size = size;
  a.kind = kind;
  a.serial = ++serial_;
  a.owned = false;
  a.name = name.empty() ? std::string("registered host memory #") + std::to_string(a.serial) : name;
  live_[base] = a;
  return true;
}

bool DeviceMemory::unregister_range(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(reinterpret_cast<uint64_t>(ptr));
  if (it == live_.end() || it->second.owned) return false;
  live_.erase(it);
  return true;
}

bool DeviceMemory::release(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(reinterpret_cast<uint64_t>(ptr));
  if (it == live_.end() || !it->second.owned) return false;
  in_use_ -= it->second.size;
  freed_[it->first] = it->second;
  if (freed_.size() > 4096) freed_.erase(freed_.begin());
  live_.erase(it);
  std::free(ptr);
  return true;
}

const Allocation* DeviceMemory::find(uint64_t addr, uint64_t size) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if (addr >= a.base && addr - a.base < a.size && size <= a.size - (addr - a.base)) return &a;
  return nullptr;
}

const Allocation* DeviceMemory::nearest_below(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return nullptr;
  return &std::prev(it)->second;
}

const Allocation* DeviceMemory::find_base(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(addr);
  return it == live_.end() ? nullptr : &it->second;
}

bool DeviceMemory::name_allocation(uint64_t addr, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  Allocation& a = it->second;
  if (a.name.rfind(name + " (", 0) == 0) return true;  // named so before
  a.name = name + " (" + a.name + ")";
  return true;
}

const Allocation* DeviceMemory::find_freed(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = freed_.upper_bound(addr);
  if (it == freed_.begin()) return nullptr;
  --it;
  if (addr - it->second.base < it->second.size) return &it->second;
  return nullptr;
}

uint64_t DeviceMemory::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_;
}

std::vector<Allocation> DeviceMemory::live() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Allocation> out;
  for (const auto& [base, a] : live_) out.push_back(a);
  return out;
}

}  // namespace synclab::sim
