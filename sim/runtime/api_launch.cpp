// Execution control: the explicit launch calls, function attributes and occupancy.
#include <algorithm>
#include <shared_mutex>

#include <fmt/format.h>

#include "sim/exec/launch_config.h"
#include "sim/runtime/api_common.h"
#include "sim/runtime/kernel_launch.h"
#include "sim/runtime/registration.h"

using namespace synclab::rt;

namespace {

cudaError_t launch(const char* api, const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                   cudaStream_t stream, bool cooperative) {
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel(api, func, &k, true); e != cudaSuccess) return e;
  LaunchRequest req;
  req.grid = grid;
  req.block = block;
  req.dynamic_shared = shared;
  req.stream = stream;
  req.cooperative = cooperative;
  return launch_kernel(api, k, req, args);
}

uint32_t occupancy(const KernelRecord* k, int block_size, size_t dynamic_shared) {
  std::shared_lock<std::shared_mutex> lock(Registry::instance().module_mutex());
  return simulator().max_active_blocks_per_sm(k->info.module, k->info.function, uint32_t(block_size), dynamic_shared);
}

}  // namespace

SIMCUDART_API cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                           cudaStream_t stream) {
  return launch("cudaLaunchKernel", func, gridDim, blockDim, args, sharedMem, stream, false);
}

SIMCUDART_API cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                                      size_t sharedMem, cudaStream_t stream) {
  return launch("cudaLaunchCooperativeKernel", func, gridDim, blockDim, args, sharedMem, stream, true);
}

SIMCUDART_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (!config) return fail("cudaLaunchKernelExC", cudaErrorInvalidValue, "config is null");
  if (config->numAttrs && !config->attrs)
    return fail("cudaLaunchKernelExC", cudaErrorInvalidValue, "numAttrs > 0 but attrs is null");
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeCooperative: cooperative = a.val.cooperative != 0; break;
      case cudaLaunchAttributeClusterDimension:
        if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
          return fail("cudaLaunchKernelExC", cudaErrorNotSupported,
                      "thread block clusters are not supported by the simulator");
        break;
      default: break;  // priorities, access policies, ...: no effect in the simulator
    }
  }
  return launch("cudaLaunchKernelExC", func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                config->stream, cooperative);
}

SIMCUDART_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (!attr) return fail("cudaFuncGetAttributes", cudaErrorInvalidValue, "attr is null");
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel("cudaFuncGetAttributes", func, &k, false); e != cudaSuccess) return e;
  const auto& p = profile();
  const KernelInfo& info = k->info;
  *attr = cudaFuncAttributes{};
  attr->sharedSizeBytes = info.static_shared;
  attr->constSizeBytes = info.const_bytes;
  attr->localSizeBytes = info.local_bytes;
  uint32_t max_threads = p.max_threads_per_block;
  if (info.maxntid[0])
    max_threads = std::min<uint32_t>(max_threads,
                                     info.maxntid[0] * std::max(1u, info.maxntid[1]) * std::max(1u, info.maxntid[2]));
  if (info.reqntid[0])
    max_threads = std::min<uint32_t>(max_threads,
                                     info.reqntid[0] * std::max(1u, info.reqntid[1]) * std::max(1u, info.reqntid[2]));
  attr->maxThreadsPerBlock = int(max_threads);
  attr->numRegs = int(info.regs);
  // ptxVersion is the virtual architecture the PTX was generated for (75 for compute_75), not
  // the PTX ISA version; CUB picks its tuning policies from it. The "binary" is what the device
  // runs, the PTX compiled (here: interpreted) for the profile's compute capability.
  attr->ptxVersion = int(info.arch ? info.arch : uint32_t(p.cc_major * 10 + p.cc_minor));
  attr->binaryVersion = p.cc_major * 10 + p.cc_minor;
  attr->cacheModeCA = 0;
  attr->maxDynamicSharedSizeBytes =
      int(synclab::sim::dynamic_shared_limit(p, info.static_shared, k->max_dynamic_shared.load()));
  attr->preferredShmemCarveout = k->carveout.load();
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel("cudaFuncSetAttribute", func, &k, false); e != cudaSuccess) return e;
  const auto& p = profile();
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
      const int64_t cap = synclab::sim::dynamic_shared_optin_limit(p, k->info.static_shared);
      if (value < 0 || value > cap)
        return fail("cudaFuncSetAttribute", cudaErrorInvalidValue,
                    fmt::format("cudaFuncAttributeMaxDynamicSharedMemorySize {} for {}: at most {} bytes "
                                "(the opt-in limit {} minus {} static bytes)",
                                value, k->display, cap, p.shared_per_block_optin, k->info.static_shared));
      k->max_dynamic_shared.store(value);
      return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100)
        return fail("cudaFuncSetAttribute", cudaErrorInvalidValue,
                    fmt::format("carveout {} is not a percentage (0..100, or -1)", value));
      k->carveout.store(value);
      return cudaSuccess;
    default:
      // Cluster and scheduling attributes: accepted, no effect in the simulator.
      return cudaSuccess;
  }
}

SIMCUDART_API cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache cacheConfig) {
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel("cudaFuncSetCacheConfig", func, &k, false); e != cudaSuccess) return e;
  k->cache_config.store(int(cacheConfig));
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig /*config*/) {
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  return resolve_kernel("cudaFuncSetSharedMemConfig", func, &k, false);
}

SIMCUDART_API cudaError_t cudaFuncGetName(const char** name, const void* func) {
  if (!name) return fail("cudaFuncGetName", cudaErrorInvalidValue, "name is null");
  KernelRecord* k = Registry::instance().find_kernel(func);
  if (!k) return fail("cudaFuncGetName", kNotAKernel, "not a registered kernel");
  *name = k->name.c_str();
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                                 int blockSize, size_t dynamicSMemSize,
                                                                                 unsigned int flags) {
  const char* api = "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
  if (!numBlocks) return fail(api, cudaErrorInvalidValue, "numBlocks is null");
  if (flags & ~unsigned(cudaOccupancyDisableCachingOverride))
    return fail(api, cudaErrorInvalidValue, fmt::format("unknown flags 0x{:x}", flags));
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel(api, func, &k, false); e != cudaSuccess) return e;
  if (blockSize <= 0) return fail(api, cudaErrorInvalidValue, fmt::format("blockSize {} must be positive", blockSize));
  *numBlocks = int(occupancy(k, blockSize, dynamicSMemSize));
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                        size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                cudaOccupancyDefault);
}

SIMCUDART_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func,
                                                                    int numBlocks, int blockSize) {
  const char* api = "cudaOccupancyAvailableDynamicSMemPerBlock";
  if (!dynamicSmemSize) return fail(api, cudaErrorInvalidValue, "dynamicSmemSize is null");
  SIMCUDART_PREAMBLE();
  KernelRecord* k = nullptr;
  if (cudaError_t e = resolve_kernel(api, func, &k, false); e != cudaSuccess) return e;
  if (numBlocks <= 0 || blockSize <= 0)
    return fail(api, cudaErrorInvalidValue, "numBlocks and blockSize must be positive");
  const auto& p = profile();
  uint64_t per_block = p.shared_per_sm / uint64_t(numBlocks);
  per_block = std::min<uint64_t>(per_block, p.shared_per_block_optin);
  *dynamicSmemSize = per_block > k->info.static_shared ? per_block - k->info.static_shared : 0;
  return cudaSuccess;
}

SIMCUDART_ALIAS(cudaError_t, cudaLaunchKernel_ptsz, cudaLaunchKernel,
                (const void*, dim3, dim3, void**, size_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaLaunchCooperativeKernel_ptsz, cudaLaunchCooperativeKernel,
                (const void*, dim3, dim3, void**, size_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaLaunchKernelExC_ptsz, cudaLaunchKernelExC,
                (const cudaLaunchConfig_t*, const void*, void**))
