// Memory management: allocation, copies and fills. Device memory is host memory registered in
// the simulator's allocation table (unified addressing), so copies are plain copies after the
// pointers have been checked; synchronous calls first wait for the device to finish earlier work.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "sim/runtime/api_common.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/host_copy.h"
#include "sim/runtime/memory_access.h"
#include "sim/runtime/stream_table.h"

using namespace synclab::rt;
using synclab::sim::Allocation;
using synclab::sim::AllocKind;

namespace {

std::mutex g_mutex;
std::set<uint64_t> g_managed;  // bases of cudaMallocManaged allocations

cudaError_t allocate(const char* api, void** ptr, size_t size, AllocKind kind) {
  if (!ptr) return fail(api, cudaErrorInvalidValue, "the output pointer is null");
  SIMCUDART_PREAMBLE();
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  auto& mem = simulator().memory();
  void* p = mem.allocate(size, kind, allocation_name(api, size));
  if (!p) {
    *ptr = nullptr;
    return fail(api, cudaErrorMemoryAllocation,
                fmt::format("cannot allocate {} bytes: {} of {} bytes of simulated device memory are "
                            "in use; free memory you no longer need, or ask for less",
                            size, mem.bytes_in_use(), mem.limit()));
  }
  *ptr = p;
  return cudaSuccess;
}

// Synchronous copy: wait for earlier work, copy on this thread, charge the simulated time.
cudaError_t copy_sync(const char* api, void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  SIMCUDART_PREAMBLE();
  CopyPlan plan;
  if (cudaError_t e = plan_copy(api, dst, src, count, kind, &plan); e != cudaSuccess) return e;
  DeviceThread::instance().wait_idle();
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  std::string why;
  if (!execute_copy(plan, dst, src, count, &why)) return fail(api, cudaErrorInvalidValue, why);
  clock_advance_ms(copy_time_ms(count, plan.dst_device && plan.src_device));
  return sync_status();
}

cudaError_t copy_async(const char* api, void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                       cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream))
    return fail(api, cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  CopyPlan plan;
  if (cudaError_t e = plan_copy(api, dst, src, count, kind, &plan); e != cudaSuccess) return e;
  return copy_in_stream(api, stream, plan, dst, count, src, count, count, 1);
}

cudaError_t check_fill(const char* api, void* dev, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (!find_allocation(dev, bytes, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(dev, bytes, "destination"));
  return cudaSuccess;
}

// 2D copies and fills: `height` rows of `width` bytes, rows `pitch` bytes apart.
cudaError_t check_2d(const char* api, size_t width, size_t height, size_t dpitch, size_t spitch) {
  if (width > dpitch || width > spitch)
    return fail(api, cudaErrorInvalidPitchValue,
                fmt::format("width {} is larger than a pitch (destination {}, source {})", width, dpitch, spitch));
  (void)height;
  return cudaSuccess;
}

uint64_t extent_2d(size_t pitch, size_t width, size_t height) {
  return height == 0 ? 0 : uint64_t(pitch) * (height - 1) + width;
}

cudaError_t free_kind(const char* api, void* ptr, bool host) {
  if (!ptr) return cudaSuccess;
  SIMCUDART_PREAMBLE();
  DeviceThread::instance().wait_idle();  // cudaFree synchronizes, as on CUDA
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  auto& mem = simulator().memory();
  auto addr = reinterpret_cast<uint64_t>(ptr);
  const Allocation* a = mem.find_base(addr);
  const char* use = host ? "cudaFreeHost" : "cudaFree";
  if (!a) {
    if (const Allocation* inside = mem.find(addr, 1))
      return fail(api, cudaErrorInvalidValue,
                  fmt::format("{} points {} bytes into {}; {} needs the pointer the allocation "
                              "returned",
                              ptr, addr - inside->base, inside->name, use));
    if (const Allocation* f = mem.find_freed(addr))
      return fail(api, cudaErrorInvalidValue, fmt::format("double free: {} ({}) was already freed", ptr, f->name));
    return fail(api, cudaErrorInvalidValue,
                fmt::format("{} was not allocated by {} (host memory or a stray pointer?)", ptr,
                            host ? "cudaMallocHost/cudaHostAlloc" : "cudaMalloc/cudaMallocManaged"));
  }
  bool is_host = a->kind == AllocKind::HostPinned || a->kind == AllocKind::HostMapped;
  bool is_runtime = is_host || a->kind == AllocKind::Device || a->kind == AllocKind::Managed;
  if (!is_runtime)
    return fail(api, cudaErrorInvalidValue, fmt::format("{} is {}, which cannot be freed", ptr, a->name));
  if (is_host != host)
    return fail(api, cudaErrorInvalidValue,
                fmt::format("{} is {}; free it with {}", ptr, a->name, host ? "cudaFree" : "cudaFreeHost"));
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_managed.erase(addr);
  }
  mem.release(ptr);
  return cudaSuccess;
}

}  // namespace

// ---- allocation ------------------------------------------------------------------------------

SIMCUDART_API cudaError_t cudaMalloc(void** devPtr, size_t size) {
  return allocate("cudaMalloc", devPtr, size, AllocKind::Device);
}

SIMCUDART_API cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
    return fail("cudaMallocManaged", cudaErrorInvalidValue,
                fmt::format("flags 0x{:x}: use cudaMemAttachGlobal or cudaMemAttachHost", flags));
  // Host and device share memory in the simulator: managed memory is memory that host code may
  // read and write while kernels run (concurrentManagedAccess), as mapped pinned memory is.
  cudaError_t e = allocate("cudaMallocManaged", devPtr, size, AllocKind::Managed);
  if (e == cudaSuccess && *devPtr) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_managed.insert(reinterpret_cast<uint64_t>(*devPtr));
  }
  return e;
}

SIMCUDART_API cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return fail("cudaMallocPitch", cudaErrorInvalidValue, "pitch is null");
  size_t p = (width + 511) / 512 * 512;
  if (p == 0) p = 512;
  cudaError_t e = allocate("cudaMallocPitch", devPtr, p * height, AllocKind::Device);
  if (e == cudaSuccess) *pitch = p;
  return e;
}

SIMCUDART_API cudaError_t cudaFree(void* devPtr) { return free_kind("cudaFree", devPtr, false); }

SIMCUDART_API cudaError_t cudaMallocHost(void** ptr, size_t size) {
  // Pinned host memory is mapped into the device's address space (unified addressing): kernels
  // may use it directly, as on any 64-bit CUDA system.
  return allocate("cudaMallocHost", ptr, size, AllocKind::HostMapped);
}

SIMCUDART_API cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  constexpr unsigned kKnown = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if (flags & ~kKnown)
    return fail("cudaHostAlloc", cudaErrorInvalidValue,
                fmt::format("unknown flags 0x{:x}; use cudaHostAllocDefault, cudaHostAllocPortable, "
                            "cudaHostAllocMapped or cudaHostAllocWriteCombined",
                            flags & ~kKnown));
  return allocate("cudaHostAlloc", pHost, size, AllocKind::HostMapped);
}

SIMCUDART_API cudaError_t cudaFreeHost(void* ptr) { return free_kind("cudaFreeHost", ptr, true); }

SIMCUDART_API cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  if (!pDevice) return fail("cudaHostGetDevicePointer", cudaErrorInvalidValue, "pDevice is null");
  if (flags != 0) return fail("cudaHostGetDevicePointer", cudaErrorInvalidValue, "flags must be 0");
  SIMCUDART_PREAMBLE();
  Allocation a;
  if (find_allocation(pHost, 0, &a) && (a.kind == AllocKind::HostMapped || a.kind == AllocKind::HostPinned)) {
    *pDevice = pHost;  // unified addressing: the same address on both sides
    return cudaSuccess;
  }
  if (in_registered_range(pHost, 1)) {
    *pDevice = pHost;
    return cudaSuccess;
  }
  *pDevice = nullptr;
  return fail("cudaHostGetDevicePointer", cudaErrorInvalidValue,
              fmt::format("{} is not page-locked host memory; allocate it with cudaHostAlloc(&p, "
                          "bytes, cudaHostAllocMapped)",
                          pHost));
}

SIMCUDART_API cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return fail("cudaHostRegister", cudaErrorInvalidValue, "null pointer or zero size");
  SIMCUDART_PREAMBLE();
  if (!readable(ptr, size))
    return fail("cudaHostRegister", cudaErrorInvalidValue,
                fmt::format("[{}, +{} bytes) is not accessible host memory", ptr, size));
  if (!add_registered_range(ptr, size))
    return fail("cudaHostRegister", cudaErrorHostMemoryAlreadyRegistered,
                fmt::format("[{}, +{} bytes) overlaps memory registered before", ptr, size));
  (void)flags;
  // Registered memory is mapped (unified addressing): kernels may use the host pointer itself.
  if (!simulator().memory().register_range(ptr, size, AllocKind::HostMapped,
                                           fmt::format("cudaHostRegister'ed memory at {}", ptr))) {
    remove_registered_range(ptr);
    return fail("cudaHostRegister", cudaErrorHostMemoryAlreadyRegistered,
                fmt::format("[{}, +{} bytes) overlaps memory the device already knows", ptr, size));
  }
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaHostUnregister(void* ptr) {
  SIMCUDART_PREAMBLE();
  if (!remove_registered_range(ptr))
    return fail("cudaHostUnregister", cudaErrorHostMemoryNotRegistered,
                fmt::format("{} was not registered with cudaHostRegister", ptr));
  simulator().memory().unregister_range(ptr);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  SIMCUDART_PREAMBLE();
  auto& mem = simulator().memory();
  uint64_t cap = std::min<uint64_t>(mem.limit(), profile().global_bytes);
  uint64_t used = mem.bytes_in_use();
  if (free) *free = used >= cap ? 0 : cap - used;
  if (total) *total = cap;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return fail("cudaPointerGetAttributes", cudaErrorInvalidValue, "attributes is null");
  ensure_device_started();
  *attributes = cudaPointerAttributes{};
  attributes->device = 0;
  Allocation a;
  if (ptr && find_allocation(ptr, 0, &a)) {
    bool managed;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      managed = g_managed.count(a.base) == 1;
    }
    void* p = const_cast<void*>(ptr);
    switch (a.kind) {
      case AllocKind::HostPinned:
      case AllocKind::HostMapped:
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
        attributes->devicePointer = p;
        break;
      default:
        attributes->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
        attributes->devicePointer = p;
        attributes->hostPointer = managed ? p : nullptr;
        break;
    }
    return cudaSuccess;
  }
  if (ptr && in_registered_range(ptr, 1)) {
    attributes->type = cudaMemoryTypeHost;
    attributes->hostPointer = const_cast<void*>(ptr);
    attributes->devicePointer = const_cast<void*>(ptr);
    return cudaSuccess;
  }
  attributes->type = cudaMemoryTypeUnregistered;
  attributes->device = -2;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  if (!StreamTable::instance().valid_stream(hStream))
    return fail("cudaMallocAsync", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  return allocate("cudaMallocAsync", devPtr, size, AllocKind::Device);
}

SIMCUDART_API cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  if (!devPtr) return cudaSuccess;
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(hStream))
    return fail("cudaFreeAsync", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  Allocation a;
  if (!simulator().memory().find_base(reinterpret_cast<uint64_t>(devPtr)) || !find_allocation(devPtr, 0, &a) ||
      a.kind != AllocKind::Device)
    return fail("cudaFreeAsync", cudaErrorInvalidValue,
                describe_bad_device_range(devPtr, 1, "pointer") +
                    "; cudaFreeAsync needs a pointer from "
                    "cudaMallocAsync or cudaMalloc");
  StreamTable::instance().submit(hStream, [devPtr] { simulator().memory().release(devPtr); });
  return cudaSuccess;
}

#if CUDART_VERSION >= 13000
SIMCUDART_API cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation /*location*/,
                                               unsigned int /*flags*/, cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream))
    return fail("cudaMemPrefetchAsync", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  if (!find_allocation(devPtr, count, nullptr))
    return fail("cudaMemPrefetchAsync", cudaErrorInvalidValue, describe_bad_device_range(devPtr, count, "pointer"));
  return cudaSuccess;  // one memory: nothing to migrate
}

SIMCUDART_API cudaError_t cudaMemAdvise(const void* devPtr, size_t count, cudaMemoryAdvise /*advice*/,
                                        cudaMemLocation /*location*/) {
  SIMCUDART_PREAMBLE();
  if (!find_allocation(devPtr, count, nullptr))
    return fail("cudaMemAdvise", cudaErrorInvalidValue, describe_bad_device_range(devPtr, count, "pointer"));
  return cudaSuccess;
}
#endif

// ---- copies and fills ------------------------------------------------------------------------

SIMCUDART_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return copy_sync("cudaMemcpy", dst, src, count, kind);
}

SIMCUDART_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  return copy_async("cudaMemcpyAsync", dst, src, count, kind, stream);
}

SIMCUDART_API cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  if (dstDevice != 0 || srcDevice != 0)
    return fail("cudaMemcpyPeer", cudaErrorInvalidDevice, "the simulator has one device, ordinal 0");
  return copy_sync("cudaMemcpyPeer", dst, src, count, cudaMemcpyDeviceToDevice);
}

// Checks a 2-D copy: pitches and sizes, direction and sides, then the whole extent of each device
// side. *empty is set when there is nothing to copy.
static cudaError_t plan_copy_2d(const char* api, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind kind, CopyPlan* plan, bool* empty) {
  if (cudaError_t e = check_2d(api, width, height, dpitch, spitch); e != cudaSuccess) return e;
  *empty = width == 0 || height == 0;
  if (*empty) return cudaSuccess;
  if (cudaError_t e = plan_copy(api, dst, src, 1, kind, plan); e != cudaSuccess) return e;
  uint64_t dext = extent_2d(dpitch, width, height), sext = extent_2d(spitch, width, height);
  if (plan->dst_device && !find_allocation(dst, dext, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(dst, dext, "destination"));
  if (plan->src_device && !find_allocation(src, sext, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(src, sext, "source"));
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind) {
  const char* api = "cudaMemcpy2D";
  SIMCUDART_PREAMBLE();
  CopyPlan plan;
  bool empty = false;
  if (cudaError_t e = plan_copy_2d(api, dst, dpitch, src, spitch, width, height, kind, &plan, &empty);
      e != cudaSuccess || empty)
    return e;
  DeviceThread::instance().wait_idle();
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  for (size_t r = 0; r < height; ++r) {
    std::string why;
    if (!execute_copy(plan, static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width,
                      &why))
      return fail(api, cudaErrorInvalidValue, fmt::format("row {}: {}", r, why));
  }
  clock_advance_ms(copy_time_ms(uint64_t(width) * height, plan.dst_device && plan.src_device));
  return sync_status();
}

SIMCUDART_API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  const char* api = "cudaMemcpy2DAsync";
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream))
    return fail(api, cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  CopyPlan plan;
  bool empty = false;
  if (cudaError_t e = plan_copy_2d(api, dst, dpitch, src, spitch, width, height, kind, &plan, &empty);
      e != cudaSuccess || empty)
    return e;
  return copy_in_stream(api, stream, plan, dst, dpitch, src, spitch, width, height);
}

SIMCUDART_API cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  SIMCUDART_PREAMBLE();
  if (cudaError_t e = check_fill("cudaMemset", devPtr, count); e != cudaSuccess) return e;
  DeviceThread::instance().wait_idle();
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  std::memset(devPtr, value, count);
  simulator().memory().mark_initialized(reinterpret_cast<uint64_t>(devPtr), count);
  clock_advance_ms(copy_time_ms(count, true));
  return sync_status();
}

SIMCUDART_API cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream))
    return fail("cudaMemsetAsync", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  if (cudaError_t e = check_fill("cudaMemsetAsync", devPtr, count); e != cudaSuccess) return e;
  if (count == 0) return cudaSuccess;
  StreamTable::instance().submit(stream, [=] {
    if (sticky_error() != cudaSuccess) return;
    std::memset(devPtr, value, count);
    simulator().memory().mark_initialized(reinterpret_cast<uint64_t>(devPtr), count);
    clock_advance_ms(copy_time_ms(count, true));
  });
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  SIMCUDART_PREAMBLE();
  if (width > pitch)
    return fail("cudaMemset2D", cudaErrorInvalidPitchValue, fmt::format("width {} > pitch {}", width, pitch));
  if (width == 0 || height == 0) return cudaSuccess;
  if (cudaError_t e = check_fill("cudaMemset2D", devPtr, extent_2d(pitch, width, height)); e != cudaSuccess) return e;
  DeviceThread::instance().wait_idle();
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  for (size_t r = 0; r < height; ++r) {
    std::memset(static_cast<char*>(devPtr) + r * pitch, value, width);
    simulator().memory().mark_initialized(reinterpret_cast<uint64_t>(devPtr) + r * pitch, width);
  }
  return sync_status();
}

SIMCUDART_API cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                            cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream))
    return fail("cudaMemset2DAsync", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  if (width > pitch)
    return fail("cudaMemset2DAsync", cudaErrorInvalidPitchValue, fmt::format("width {} > pitch {}", width, pitch));
  if (width == 0 || height == 0) return cudaSuccess;
  if (cudaError_t e = check_fill("cudaMemset2DAsync", devPtr, extent_2d(pitch, width, height)); e != cudaSuccess)
    return e;
  StreamTable::instance().submit(stream, [=] {
    if (sticky_error() != cudaSuccess) return;
    for (size_t r = 0; r < height; ++r) {
      std::memset(static_cast<char*>(devPtr) + r * pitch, value, width);
      simulator().memory().mark_initialized(reinterpret_cast<uint64_t>(devPtr) + r * pitch, width);
    }
  });
  return cudaSuccess;
}

// --default-stream per-thread names.
SIMCUDART_ALIAS(cudaError_t, cudaMemcpy_ptds, cudaMemcpy, (void*, const void*, size_t, cudaMemcpyKind))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpyAsync_ptsz, cudaMemcpyAsync,
                (void*, const void*, size_t, cudaMemcpyKind, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpy2D_ptds, cudaMemcpy2D,
                (void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync,
                (void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemset_ptds, cudaMemset, (void*, int, size_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemsetAsync_ptsz, cudaMemsetAsync, (void*, int, size_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemset2D_ptds, cudaMemset2D, (void*, size_t, int, size_t, size_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemset2DAsync_ptsz, cudaMemset2DAsync,
                (void*, size_t, int, size_t, size_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMallocAsync_ptsz, cudaMallocAsync, (void**, size_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaFreeAsync_ptsz, cudaFreeAsync, (void*, cudaStream_t))
