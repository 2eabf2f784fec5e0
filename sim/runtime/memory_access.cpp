#include "sim/runtime/memory_access.h"

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/host_copy.h"
#include "sim/runtime/stream_table.h"

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
    return fmt::format(
        "the {} range [{}, +{} bytes) runs {} bytes past the end of {} at 0x{:x} "
        "(the range starts at offset {} of its {} bytes)",
        role, p, n, off + n - c.size, c.name, c.base, off, c.size);
  }
  if (const sim::Allocation* f = mem.find_freed(addr)) {
    sim::Allocation c = *f;
    return fmt::format("the {} pointer {} points into {}, which was already freed", role, p, c.name);
  }
  return fmt::format(
      "the {} pointer {} is not device memory (it is not inside any cudaMalloc, "
      "cudaMallocManaged or cudaHostAlloc allocation or __device__ variable); did "
      "you pass a host pointer, or swap the arguments?",
      role, p);
}

cudaError_t plan_copy(const char* api, void* dst, const void* src, uint64_t n, cudaMemcpyKind kind, CopyPlan* plan) {
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
  const char* kind_name = kind == cudaMemcpyHostToDevice     ? " (cudaMemcpyHostToDevice)"
                          : kind == cudaMemcpyDeviceToHost   ? " (cudaMemcpyDeviceToHost)"
                          : kind == cudaMemcpyDeviceToDevice ? " (cudaMemcpyDeviceToDevice)"
                                                             : "";
  if (dst_dev && !find_allocation(dst, n, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(dst, n, "destination") + kind_name);
  if (src_dev && !find_allocation(src, n, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(src, n, "source") + kind_name);
  plan->dst_device = dst_dev;
  plan->src_device = src_dev;
  return cudaSuccess;
}

bool execute_copy(const CopyPlan& plan, void* dst, const void* src, uint64_t n, std::string* why) {
  if (n == 0) return true;
  if (plan.dst_device) simulator().memory().mark_initialized(reinterpret_cast<uint64_t>(dst), n);
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

namespace {
std::mutex g_registered_mutex;
std::map<uint64_t, uint64_t> g_registered;  // base -> size
}  // namespace

bool add_registered_range(const void* p, uint64_t n) {
  auto a = reinterpret_cast<uint64_t>(p);
  std::lock_guard<std::mutex> lock(g_registered_mutex);
  auto it = g_registered.lower_bound(a);
  if (it != g_registered.end() && it->first < a + n) return false;
  if (it != g_registered.begin() && std::prev(it)->first + std::prev(it)->second > a) return false;
  g_registered[a] = n;
  return true;
}

bool remove_registered_range(const void* p) {
  std::lock_guard<std::mutex> lock(g_registered_mutex);
  return g_registered.erase(reinterpret_cast<uint64_t>(p)) == 1;
}

bool in_registered_range(const void* p, uint64_t n) {
  auto a = reinterpret_cast<uint64_t>(p);
  std::lock_guard<std::mutex> lock(g_registered_mutex);
  auto it = g_registered.upper_bound(a);
  if (it == g_registered.begin()) return false;
  --it;
  return a - it->first < it->second && n <= it->second - (a - it->first);
}

bool is_pinned_host(const void* p, uint64_t n) {
  sim::Allocation a;
  if (find_allocation(p, n, &a)) return a.kind == sim::AllocKind::HostMapped || a.kind == sim::AllocKind::HostPinned;
  return in_registered_range(p, n);
}

cudaError_t copy_in_stream(const char* api, cudaStream_t stream, const CopyPlan& plan, void* dst, size_t dpitch,
                           const void* src, size_t spitch, size_t width, size_t rows) {
  const uint64_t total = uint64_t(width) * rows;
  if (total == 0) return cudaSuccess;
  const uint64_t sext = rows ? uint64_t(spitch) * (rows - 1) + width : 0;
  const uint64_t dext = rows ? uint64_t(dpitch) * (rows - 1) + width : 0;
  const bool device_side = plan.dst_device && plan.src_device;
  auto copy_rows = [=](const void* from, size_t from_pitch, std::string* why) {
    for (size_t r = 0; r < rows; ++r)
      if (!execute_copy(plan, static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(from) + r * from_pitch,
                        width, why))
        return false;
    return true;
  };

  // Into pageable host memory: synchronous, after the stream's earlier work.
  if (!plan.dst_device && !is_pinned_host(dst, dext)) {
    StreamTable::instance().synchronize(stream);
    if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
    std::string why;
    if (!copy_rows(src, spitch, &why)) return fail(api, cudaErrorInvalidValue, why);
    clock_advance_ms(copy_time_ms(total, device_side));
    return cudaSuccess;
  }

  // From pageable host memory: take the data now.
  std::shared_ptr<std::vector<uint8_t>> staged;
  if (!plan.src_device && !is_pinned_host(src, sext)) {
    staged = std::make_shared<std::vector<uint8_t>>(sext);
    for (size_t r = 0; r < rows; ++r)
      if (!checked_copy(staged->data() + r * spitch, static_cast<const char*>(src) + r * spitch, width))
        return fail(api, cudaErrorInvalidValue,
                    fmt::format("the host source range [{}, +{} bytes) is not readable memory", src, sext));
  }
  std::string name = api;
  StreamTable::instance().submit(stream, [=] {
    if (sticky_error() != cudaSuccess) return;
    std::string why;
    CopyPlan p = plan;
    const void* from = src;
    if (staged) {
      from = staged->data();
      p.src_device = true;  // the staging buffer is ours: no checks needed
    }
    bool ok = true;
    for (size_t r = 0; r < rows && ok; ++r)
      ok = execute_copy(p, static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(from) + r * spitch, width,
                        &why);
    if (!ok) {
      diag(name + ": " + why + " (reported asynchronously as cudaErrorInvalidValue)");
      post_async_error(cudaErrorInvalidValue);
      return;
    }
    clock_advance_ms(copy_time_ms(total, device_side));
  });
  return cudaSuccess;
}

std::string allocation_name(const char* api, uint64_t bytes) {
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{} #{} ({} bytes)", api, ++counter, bytes);
}

}  // namespace synclab::rt
