// Device management: one simulated device (ordinal 0) shaped by the device profile.
#include <cstdio>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "sim/runtime/api_common.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/registration.h"
#include "sim/runtime/stream_table.h"

using namespace synclab::rt;

namespace {

std::mutex g_settings_mutex;
unsigned g_device_flags = cudaDeviceMapHost;
size_t g_limits[16] = {};
cudaFuncCache g_cache_config = cudaFuncCachePreferNone;

cudaError_t check_device(const char* api, int device) {
  if (device != 0)
    return fail(api, cudaErrorInvalidDevice,
                fmt::format("device {} does not exist; the simulator has one device, ordinal 0", device));
  return cudaSuccess;
}

size_t limit_default(cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize: return 1024;
    case cudaLimitPrintfFifoSize: return 1 << 20;
    case cudaLimitMallocHeapSize: return 8 << 20;
    case cudaLimitDevRuntimeSyncDepth: return 2;
    case cudaLimitDevRuntimePendingLaunchCount: return 2048;
    case cudaLimitMaxL2FetchGranularity: return 64;
    case cudaLimitPersistingL2CacheSize: return 0;
    default: return 0;
  }
}

}  // namespace

SIMCUDART_API cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail("cudaGetDeviceCount", cudaErrorInvalidValue, "count is null");
  *count = 1;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaSetDevice(int device) {
  if (cudaError_t e = check_device("cudaSetDevice", device); e != cudaSuccess) return e;
  ensure_device_started();
  return cudaSuccess;  // selecting the device does not use it: no sticky error here
}

SIMCUDART_API cudaError_t cudaGetDevice(int* device) {
  if (!device) return fail("cudaGetDevice", cudaErrorInvalidValue, "device is null");
  *device = 0;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (!device || !prop) return fail("cudaChooseDevice", cudaErrorInvalidValue, "null argument");
  *device = 0;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaInitDevice(int device, unsigned int /*deviceFlags*/, unsigned int /*flags*/) {
  if (cudaError_t e = check_device("cudaInitDevice", device); e != cudaSuccess) return e;
  ensure_device_started();
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return fail("cudaGetDeviceProperties", cudaErrorInvalidValue, "prop is null");
  if (cudaError_t e = check_device("cudaGetDeviceProperties", device); e != cudaSuccess) return e;
  const auto& p = profile();
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "%s", p.marketing.empty() ? p.name.c_str() : p.marketing.c_str());
  std::memcpy(prop->uuid.bytes, "SyncLab-simGPU-0", 16);
  prop->totalGlobalMem = p.global_bytes;
  prop->sharedMemPerBlock = p.shared_per_block;
  prop->regsPerBlock = int(p.regs_per_block);
  prop->warpSize = 32;
  prop->memPitch = 0x7fffffff;
  prop->maxThreadsPerBlock = int(p.max_threads_per_block);
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = int(p.max_block[i]);
    prop->maxGridSize[i] = int(p.max_grid[i]);
  }
  prop->totalConstMem = p.const_bytes;
  prop->major = p.cc_major;
  prop->minor = p.cc_minor;
  prop->textureAlignment = 512;
  prop->texturePitchAlignment = 32;
  prop->multiProcessorCount = int(p.sm_count);
  prop->integrated = 0;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 1;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = int(p.mem_bus_width);
  prop->l2CacheSize = int(p.l2_bytes);
  prop->maxThreadsPerMultiProcessor = int(p.max_threads_per_sm);
  prop->streamPrioritiesSupported = 1;
  prop->globalL1CacheSupported = 1;
  prop->localL1CacheSupported = 1;
  prop->sharedMemPerMultiprocessor = p.shared_per_sm;
  prop->regsPerMultiprocessor = int(p.regs_per_sm);
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->pageableMemoryAccess = 0;
  prop->cooperativeLaunch = 1;
  prop->sharedMemPerBlockOptin = p.shared_per_block_optin;
  prop->directManagedMemAccessFromHost = 1;
  prop->maxBlocksPerMultiProcessor = int(p.max_ctas_per_sm);
  prop->hostRegisterSupported = 1;
  prop->memoryPoolsSupported = 1;
  prop->hostNumaId = -1;
  prop->deviceNumaId = -1;
#if CUDART_VERSION < 13000
  prop->clockRate = int(p.clock_khz);
  prop->memoryClockRate = int(p.mem_clock_khz);
#endif
  return cudaSuccess;
}

// CUDA 12's headers rename cudaGetDeviceProperties to cudaGetDeviceProperties_v2 (so the
// definition above already has that name there); CUDA 13's call the plain name.

SIMCUDART_API cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return fail("cudaDeviceGetAttribute", cudaErrorInvalidValue, "value is null");
  if (cudaError_t e = check_device("cudaDeviceGetAttribute", device); e != cudaSuccess) return e;
  const auto& p = profile();
  int v;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = int(p.max_threads_per_block); break;
    case cudaDevAttrMaxBlockDimX: v = int(p.max_block[0]); break;
    case cudaDevAttrMaxBlockDimY: v = int(p.max_block[1]); break;
    case cudaDevAttrMaxBlockDimZ: v = int(p.max_block[2]); break;
    case cudaDevAttrMaxGridDimX: v = int(p.max_grid[0]); break;
    case cudaDevAttrMaxGridDimY: v = int(p.max_grid[1]); break;
    case cudaDevAttrMaxGridDimZ: v = int(p.max_grid[2]); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = int(p.shared_per_block); break;
    case cudaDevAttrTotalConstantMemory: v = int(p.const_bytes); break;
    case cudaDevAttrWarpSize: v = 32; break;
    case cudaDevAttrMaxPitch: v = 0x7fffffff; break;
    case cudaDevAttrMaxRegistersPerBlock: v = int(p.regs_per_block); break;
    case cudaDevAttrClockRate: v = int(p.clock_khz); break;
    case cudaDevAttrTextureAlignment: v = 512; break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = int(p.sm_count); break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = 0; break;
    case cudaDevAttrPciBusId:
    case cudaDevAttrPciDeviceId:
    case cudaDevAttrPciDomainId: v = 0; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = int(p.mem_clock_khz); break;
    case cudaDevAttrGlobalMemoryBusWidth: v = int(p.mem_bus_width); break;
    case cudaDevAttrL2CacheSize: v = int(p.l2_bytes); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = int(p.max_threads_per_sm); break;
    case cudaDevAttrAsyncEngineCount: v = 1; break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrTexturePitchAlignment: v = 32; break;
    case cudaDevAttrComputeCapabilityMajor: v = p.cc_major; break;
    case cudaDevAttrComputeCapabilityMinor: v = p.cc_minor; break;
    case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
    case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = int(p.shared_per_sm); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = int(p.regs_per_sm); break;
    case cudaDevAttrManagedMemory: v = 1; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 1; break;
    case cudaDevAttrComputePreemptionSupported: v = 1; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = int(p.shared_per_block_optin); break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = 1; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = int(p.max_ctas_per_sm); break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = 0; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = 0; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = 0; break;
    case cudaDevAttrMemoryPoolsSupported: v = 1; break;
    case cudaDevAttrClusterLaunch: v = 0; break;
    default:
      *value = 0;
      return fail("cudaDeviceGetAttribute", cudaErrorInvalidValue,
                  fmt::format("attribute {} is not modelled by the simulator", int(attr)));
  }
  *value = v;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  if (!pciBusId || len <= 0) return fail("cudaDeviceGetPCIBusId", cudaErrorInvalidValue, "null or empty buffer");
  if (cudaError_t e = check_device("cudaDeviceGetPCIBusId", device); e != cudaSuccess) return e;
  std::snprintf(pciBusId, size_t(len), "0000:00:00.0");
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceSynchronize(void) {
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  return sync_status();
}

// Removed from CUDA 13's headers; CUDA 12 programs may still call it.
SIMCUDART_API cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

SIMCUDART_API cudaError_t cudaDeviceReset(void) {
  ensure_device_started();
  DeviceThread::instance().wait_idle();
  // Free what the program allocated through the runtime; module variables stay (the simulator
  // cannot reload a module, so their values survive a reset, unlike on a GPU).
  auto& mem = simulator().memory();
  for (const auto& a : mem.live()) {
    if (a.kind == synclab::sim::AllocKind::Device || a.kind == synclab::sim::AllocKind::HostPinned ||
        a.kind == synclab::sim::AllocKind::HostMapped || a.kind == synclab::sim::AllocKind::Managed)
      mem.release(reinterpret_cast<void*>(a.base));
  }
  StreamTable::instance().reset();
  clear_errors();
  clear_last_reports();
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  for (auto& l : g_limits) l = 0;
  g_device_flags = cudaDeviceMapHost;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  constexpr unsigned kKnown =
      cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops;
  if (flags & ~kKnown)
    return fail("cudaSetDeviceFlags", cudaErrorInvalidValue, fmt::format("unknown flags 0x{:x}", flags & ~kKnown));
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_device_flags = flags | cudaDeviceMapHost;  // host memory is always mapped (unified addressing)
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return fail("cudaGetDeviceFlags", cudaErrorInvalidValue, "flags is null");
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  *flags = g_device_flags;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  if (unsigned(limit) >= 16 || (limit_default(limit) == 0 && limit != cudaLimitPersistingL2CacheSize))
    return fail("cudaDeviceSetLimit", cudaErrorUnsupportedLimit,
                fmt::format("limit {} is not supported by the simulator", int(limit)));
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_limits[limit] = value;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (!value) return fail("cudaDeviceGetLimit", cudaErrorInvalidValue, "value is null");
  if (unsigned(limit) >= 16 || (limit_default(limit) == 0 && limit != cudaLimitPersistingL2CacheSize))
    return fail("cudaDeviceGetLimit", cudaErrorUnsupportedLimit,
                fmt::format("limit {} is not supported by the simulator", int(limit)));
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  *value = g_limits[limit] ? g_limits[limit] : limit_default(limit);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  g_cache_config = config;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (!config) return fail("cudaDeviceGetCacheConfig", cudaErrorInvalidValue, "config is null");
  std::lock_guard<std::mutex> lock(g_settings_mutex);
  *config = g_cache_config;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (!canAccessPeer) return fail("cudaDeviceCanAccessPeer", cudaErrorInvalidValue, "canAccessPeer is null");
  if (device != 0 || peerDevice != 0)
    return fail("cudaDeviceCanAccessPeer", cudaErrorInvalidDevice, "the simulator has one device, ordinal 0");
  *canAccessPeer = 0;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (!driverVersion) return fail("cudaDriverGetVersion", cudaErrorInvalidValue, "driverVersion is null");
  *driverVersion = CUDART_VERSION;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (!runtimeVersion) return fail("cudaRuntimeGetVersion", cudaErrorInvalidValue, "runtimeVersion is null");
  *runtimeVersion = CUDART_VERSION;
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
SIMCUDART_API cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
