#include "sim/runtime/memory_access.h"

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/host_copy.h"

namespace synclab::rt {

bool find_allocation(const void* p, uint64_t n, sim::Allocation* out) {
  const sim::Allocation* a = simulator().memory().find(reinterpret_cast<uint64_t>(p), n ? n : 1);
  if (!a) return false;
  if (out) *out = *a;
  return true;
}

std::string describe_bad_device_range(const void* p, uint64_t n, const char* role) {
  auto addr = reinterpret_cast<uint64_t>(p);
  if (!p) return fmt::format("the {} pointer is null", role);
  auto& mem = simulator().memory();
  if (const sim::Allocation* a = mem.find(addr, 1)) {
    sim::Allocation c = *a;
    uint64_t off = addr - c.base;
    return fmt::format("the {} range [{}, +{} bytes) runs {} bytes past the end of {} at 0x{:x} "
                       "(the range starts at offset {} of its {} bytes)",
                       role, p, n, off + n - c.size, c.name, c.base, off, c.size);
  }
  if (const sim::Allocation* f = mem.find_freed(addr)) {
    sim::Allocation c = *f;
    return fmt::format("the {} pointer {} points into {}, which was already freed", role, p, c.name);
  }
  return fmt::format("the {} pointer {} is not device memory (it is not inside any cudaMalloc, "
                     "cudaMallocManaged or cudaHostAlloc allocation or __device__ variable); did "
                     "you pass a host pointer, or swap the arguments?",
                     role, p);
}

cudaError_t plan_copy(const char* api, void* dst, const void* src, uint64_t n, cudaMemcpyKind kind,
                      CopyPlan* plan) {
  if (unsigned(kind) > unsigned(cudaMemcpyDefault))
    return fail(api, cudaErrorInvalidMemcpyDirection,
                fmt::format("{} is not a cudaMemcpyKind (use cudaMemcpyHostToDevice, "
                            "cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyHostToHost "
                            "or cudaMemcpyDefault)",
                            int(kind)));
  *plan = CopyPlan{};
  if (n == 0) return cudaSuccess;
  if (!dst) return fail(api, cudaErrorInvalidValue, "the destination pointer is null");
  if (!src) return fail(api, cudaErrorInvalidValue, "the source pointer is null");
  bool dst_dev = false, src_dev = false;
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: dst_dev = true; break;
    case cudaMemcpyDeviceToHost: src_dev = true; break;
    case cudaMemcpyDeviceToDevice: dst_dev = src_dev = true; break;
    default:
      // cudaMemcpyDefault: unified addressing tells the sides apart.
      dst_dev = find_allocation(dst, 0, nullptr);
      src_dev = find_allocation(src, 0, nullptr);
      break;
  }
  const char* kind_name = kind == cudaMemcpyHostToDevice   ? " (cudaMemcpyHostToDevice)"
                          : kind == cudaMemcpyDeviceToHost ? " (cudaMemcpyDeviceToHost)"
                          : kind == cudaMemcpyDeviceToDevice ? " (cudaMemcpyDeviceToDevice)"
                                                             : "";
  if (dst_dev && !find_allocation(dst, n, nullptr))
    return fail(api, cudaErrorInvalidValue,
                describe_bad_device_range(dst, n, "destination") + kind_name);
  if (src_dev && !find_allocation(src, n, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(src, n, "source") + kind_name);
  plan->dst_device = dst_dev;
  plan->src_device = src_dev;
  return cudaSuccess;
}

bool execute_copy(const CopyPlan& plan, void* dst, const void* src, uint64_t n, std::string* why) {
  if (n == 0) return true;
  if (plan.dst_device && plan.src_device) {
    std::memmove(dst, src, n);
    return true;
  }
  if (checked_copy(dst, src, n)) return true;
  if (why) {
    if (!plan.src_device && !readable(src, n))
      *why = fmt::format("the host source range [{}, +{} bytes) is not readable memory", src, n);
    else
      *why = fmt::format("the host destination range [{}, +{} bytes) is not writable memory", dst, n);
  }
  return false;
}

std::string allocation_name(const char* api, uint64_t bytes) {
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{} #{} ({} bytes)", api, ++counter, bytes);
}

}  // namespace synclab::rt
