#include "sim/runtime/kernel_launch.h"

#include "sim/exec/launch_config.h"

#include <cstdlib>
#include <cstring>
#include <shared_mutex>

#include <fmt/format.h>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/host_copy.h"
#include "sim/runtime/stream_table.h"

namespace synclab::rt {

namespace {

std::string dims(const dim3& d) { return fmt::format("({}, {}, {})", d.x, d.y, d.z); }

}  // namespace

cudaError_t resolve_kernel(const char* api, const void* host_fun, KernelRecord** out, bool sticky_load) {
  *out = nullptr;
  if (!host_fun) return fail(api, cudaErrorInvalidDeviceFunction, "the kernel function pointer is null");
  KernelRecord* k = Registry::instance().find_kernel(host_fun);
  if (!k) k = Registry::instance().kernel_from_handle(host_fun);  // a cudaKernel_t
  if (!k)
    return fail(api, kNotAKernel,
                fmt::format("{} is not a __global__ function of this program (no kernel was "
                            "registered for that host address); pass the kernel itself, e.g. "
                            "(void*)myKernel",
                            host_fun));
  cudaError_t e = Registry::instance().ensure_loaded(k->fatbin, api, sticky_load);
  if (e != cudaSuccess) return e;
  if (!k->found)
    return fail(api, cudaErrorInvalidDeviceFunction,
                fmt::format("kernel {} is registered by the program, but the PTX of {} has no .entry "
                            "named {}",
                            k->display, k->fatbin->origin, k->name));
  *out = k;
  return cudaSuccess;
}

cudaError_t launch_kernel(const char* api, KernelRecord* k, const LaunchRequest& req, void** args) {
  if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
  if (!k) return fail(api, cudaErrorInvalidDeviceFunction, "no kernel given");
  const std::string& kname = k->display;
  // Messages start with the launch as written: "kernel(int*)<<<(1, 1, 1), (2048, 1, 1)>>>".
  const std::string launch = fmt::format("{}<<<{}, {}>>>", kname, dims(req.grid), dims(req.block));
  const std::string where_s =
      (std::strcmp(api, "kernel launch") == 0 ? std::string() : std::string(api) + ": ") + launch;
  const char* where = where_s.c_str();
  if (!StreamTable::instance().valid_stream(req.stream))
    return fail(where, cudaErrorInvalidResourceHandle,
                fmt::format("stream {} is not a live stream (destroyed, or never created with "
                            "cudaStreamCreate)",
                            static_cast<const void*>(req.stream)));
  if (cudaError_t e = Registry::instance().ensure_loaded(k->fatbin, where, true); e != cudaSuccess) return e;
  if (!k->found)
    return fail(where, cudaErrorInvalidDeviceFunction,
                fmt::format("kernel {} has no .entry in the PTX of {}", kname, k->fatbin->origin));
  const KernelInfo& info = k->info;
  const sim::DeviceProfile& prof = profile();

  // ---- configuration, in the order CUDA checks it ----
  const dim3& g = req.grid;
  const dim3& b = req.block;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  const sim::LaunchShapeCheck shape =
      sim::check_launch_shape(prof, sim::Dim3{g.x, g.y, g.z}, sim::Dim3{b.x, b.y, b.z}, info.static_shared, 0);
  if (shape.problem == sim::LaunchShapeProblem::Grid || shape.problem == sim::LaunchShapeProblem::Block)
    return fail(where, kBadLaunchConfig, shape.message);
  if (info.reqntid[0]) {
    if (b.x != info.reqntid[0] || b.y != std::max(1u, info.reqntid[1]) || b.z != std::max(1u, info.reqntid[2]))
      return fail(where, kAboveLaunchBounds,
                  fmt::format("the block {} does not match the kernel's required block "
                              "size ({}, {}, {}) (.reqntid)",
                              dims(b), info.reqntid[0], std::max(1u, info.reqntid[1]), std::max(1u, info.reqntid[2])));
  }
  if (info.maxntid[0]) {
    uint64_t cap = uint64_t(info.maxntid[0]) * std::max(1u, info.maxntid[1]) * std::max(1u, info.maxntid[2]);
    if (threads > cap)
      return fail(where, kAboveLaunchBounds,
                  fmt::format("{} threads per block exceed the kernel's "
                              "__launch_bounds__ of {} threads",
                              threads, cap));
  }
  if (shape.problem == sim::LaunchShapeProblem::SharedMemory)
    return fail(where, kBadLaunchConfig,
                fmt::format("kernel {} declares {} bytes of static __shared__ memory; the device has "
                            "at most {} per block (a GPU build would fail in ptxas)",
                            kname, info.static_shared, prof.shared_per_block_optin));
  const uint64_t dyn_limit = sim::dynamic_shared_limit(prof, info.static_shared, k->max_dynamic_shared.load());
  if (req.dynamic_shared > dyn_limit)
    return fail(where, kBadLaunchConfig,
                fmt::format("{} bytes of dynamic shared memory requested, {} allowed "
                            "({} static bytes already used; the default limit is {} per block). "
                            "Above the default, call cudaFuncSetAttribute(kernel, "
                            "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first (up to {})",
                            req.dynamic_shared, dyn_limit, info.static_shared, prof.shared_per_block,
                            sim::dynamic_shared_optin_limit(prof, info.static_shared)));
  if (!info.params.empty() && args && !readable(args, info.params.size() * sizeof(void*)))
    return fail(where, cudaErrorInvalidValue,
                fmt::format("the argument array {} is not readable memory", static_cast<const void*>(args)));
  if (!info.params.empty() && !args)
    return fail(where, cudaErrorInvalidValue,
                fmt::format("the kernel takes {} parameters but the argument array is "
                            "null",
                            info.params.size()));

  // ---- parameters: each argument's bytes at its offset in the entry's buffer ----
  sim::LaunchParams lp;
  lp.module = info.module;
  lp.function = info.function;
  lp.grid = {g.x, g.y, g.z};
  lp.block = {b.x, b.y, b.z};
  lp.dynamic_shared = req.dynamic_shared;
  lp.cooperative = req.cooperative;
  lp.params.assign(info.param_bytes, 0);
  for (size_t i = 0; i < info.params.size(); ++i) {
    const auto& p = info.params[i];
    if (p.size == 0) continue;
    if (p.offset + p.size > lp.params.size())
      return fail(where, cudaErrorInvalidValue,
                  fmt::format("parameter {} lies outside the parameter buffer "
                              "(simulator layout error)",
                              i));
    if (!args[i] || !checked_copy(lp.params.data() + p.offset, args[i], p.size))
      return fail(where, cudaErrorInvalidValue,
                  fmt::format("argument {} of {}: its pointer {} in the argument array does not point "
                              "to {} readable bytes",
                              i, info.params.size(), args[i], p.size));
  }

  if (req.cooperative) {
    uint32_t resident;
    {
      std::shared_lock<std::shared_mutex> lock(Registry::instance().module_mutex());
      resident = simulator().max_resident_ctas(lp);
    }
    if (g.x * uint64_t(g.y) * g.z > resident)
      return fail(where, cudaErrorCooperativeLaunchTooLarge,
                  fmt::format("cooperative launch: {} blocks cannot all be resident at once; "
                              "this device holds at most {} blocks of {} threads ({} SMs). Use "
                              "cudaOccupancyMaxActiveBlocksPerMultiprocessor * multiProcessorCount "
                              "blocks at most",
                              g.x * uint64_t(g.y) * g.z, resident, threads, prof.sm_count));
  }

  StreamTable::instance().submit(
      req.stream,
      [kname, lp = std::move(lp)] {
        // After a sticky error the device runs nothing more, as on a GPU.
        if (sticky_error() != cudaSuccess) return;
        sim::LaunchResult r = simulator().launch(lp);
        finish_launch(kname, r);
      },
      launch);
  return cudaSuccess;
}

}  // namespace synclab::rt
