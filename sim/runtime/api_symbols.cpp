// __device__ / __constant__ variables reached through their host shadows (the `symbol`
// argument is the variable itself, as the C++ templates of cuda_runtime.h pass it).
#include <fmt/format.h>

#include "sim/runtime/api_common.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/memory_access.h"
#include "sim/runtime/registration.h"
#include "sim/runtime/stream_table.h"

using namespace synclab::rt;

namespace {

cudaError_t resolve_symbol(const char* api, const void* symbol, uint64_t* address, uint64_t* size, std::string* name) {
  if (!symbol) return fail(api, cudaErrorInvalidSymbol, "the symbol is null");
  VarRecord* v = Registry::instance().find_var(symbol);
  if (!v)
    return fail(api, cudaErrorInvalidSymbol,
                fmt::format("{} is not a __device__ or __constant__ variable of this program; pass the "
                            "variable itself (cudaMemcpyToSymbol(myVar, ...)), not its address, a "
                            "string or a cudaMalloc pointer",
                            symbol));
  if (cudaError_t e = Registry::instance().ensure_loaded(v->fatbin, api, false); e != cudaSuccess) return e;
  if (!v->device_address)
    return fail(api, cudaErrorInvalidSymbol,
                fmt::format("variable {} is registered by the program, but the PTX of {} does not "
                            "define it",
                            v->name, v->fatbin->origin));
  *address = v->device_address;
  *size = v->size;
  if (name) *name = v->name;
  return cudaSuccess;
}

// Validates a symbol copy; fills the device-side pointer.
cudaError_t symbol_range(const char* api, const void* symbol, size_t count, size_t offset, char** dev) {
  uint64_t addr = 0, size = 0;
  std::string name;
  if (cudaError_t e = resolve_symbol(api, symbol, &addr, &size, &name); e != cudaSuccess) return e;
  if (offset > size || count > size - offset)
    return fail(api, cudaErrorInvalidValue,
                fmt::format("{} bytes at offset {} do not fit in {} ({} bytes)", count, offset, name, size));
  *dev = reinterpret_cast<char*>(addr) + offset;
  return cudaSuccess;
}

// The non-symbol side of a symbol copy: device memory for cudaMemcpyDeviceToDevice (and for
// cudaMemcpyDefault when it lies in an allocation), host memory otherwise.
cudaError_t check_other_side(const char* api, const void* p, size_t count, cudaMemcpyKind kind, const char* role,
                             bool* device) {
  if (count == 0) {
    *device = false;
    return cudaSuccess;
  }
  if (!p) return fail(api, cudaErrorInvalidValue, fmt::format("the {} pointer is null", role));
  *device = kind == cudaMemcpyDeviceToDevice || (kind == cudaMemcpyDefault && find_allocation(p, 0, nullptr));
  if (*device && !find_allocation(p, count, nullptr))
    return fail(api, cudaErrorInvalidValue, describe_bad_device_range(p, count, role));
  return cudaSuccess;
}

cudaError_t to_symbol(const char* api, const void* symbol, const void* src, size_t count, size_t offset,
                      cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection,
                "copies to a symbol go host-to-device, device-to-device or default");
  if (async && !StreamTable::instance().valid_stream(stream))
    return fail(api, cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  char* dev = nullptr;
  if (cudaError_t e = symbol_range(api, symbol, count, offset, &dev); e != cudaSuccess) return e;
  // The symbol side was checked against the variable's size; check the other side.
  CopyPlan plan;
  plan.dst_device = true;
  if (cudaError_t e = check_other_side(api, src, count, kind, "source", &plan.src_device); e != cudaSuccess) return e;
  if (!async) {
    DeviceThread::instance().wait_idle();
    if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
    std::string why;
    if (!execute_copy(plan, dev, src, count, &why)) return fail(api, cudaErrorInvalidValue, why);
    clock_advance_ms(copy_time_ms(count, plan.src_device));
    return sync_status();
  }
  return copy_in_stream(api, stream, plan, dev, count, src, count, count, 1);
}

cudaError_t from_symbol(const char* api, void* dst, const void* symbol, size_t count, size_t offset,
                        cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection,
                "copies from a symbol go device-to-host, device-to-device or default");
  if (async && !StreamTable::instance().valid_stream(stream))
    return fail(api, cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  char* dev = nullptr;
  if (cudaError_t e = symbol_range(api, symbol, count, offset, &dev); e != cudaSuccess) return e;
  CopyPlan plan;
  plan.src_device = true;
  if (cudaError_t e = check_other_side(api, dst, count, kind, "destination", &plan.dst_device); e != cudaSuccess)
    return e;
  if (!async) {
    DeviceThread::instance().wait_idle();
    if (cudaError_t s = check_sticky(); s != cudaSuccess) return s;
    std::string why;
    if (!execute_copy(plan, dst, dev, count, &why)) return fail(api, cudaErrorInvalidValue, why);
    clock_advance_ms(copy_time_ms(count, plan.dst_device));
    return sync_status();
  }
  return copy_in_stream(api, stream, plan, dst, count, dev, count, count, 1);
}

}  // namespace

SIMCUDART_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                             cudaMemcpyKind kind) {
  return to_symbol("cudaMemcpyToSymbol", symbol, src, count, offset, kind, false, nullptr);
}

SIMCUDART_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                               cudaMemcpyKind kind) {
  return from_symbol("cudaMemcpyFromSymbol", dst, symbol, count, offset, kind, false, nullptr);
}

SIMCUDART_API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                                  cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol("cudaMemcpyToSymbolAsync", symbol, src, count, offset, kind, true, stream);
}

SIMCUDART_API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                    cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol("cudaMemcpyFromSymbolAsync", dst, symbol, count, offset, kind, true, stream);
}

SIMCUDART_API cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  if (!devPtr) return fail("cudaGetSymbolAddress", cudaErrorInvalidValue, "devPtr is null");
  SIMCUDART_PREAMBLE();
  uint64_t addr = 0, size = 0;
  if (cudaError_t e = resolve_symbol("cudaGetSymbolAddress", symbol, &addr, &size, nullptr); e != cudaSuccess) return e;
  *devPtr = reinterpret_cast<void*>(addr);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  if (!size) return fail("cudaGetSymbolSize", cudaErrorInvalidValue, "size is null");
  SIMCUDART_PREAMBLE();
  uint64_t addr = 0, sz = 0;
  if (cudaError_t e = resolve_symbol("cudaGetSymbolSize", symbol, &addr, &sz, nullptr); e != cudaSuccess) return e;
  *size = sz;
  return cudaSuccess;
}

SIMCUDART_ALIAS(cudaError_t, cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol,
                (const void*, const void*, size_t, size_t, cudaMemcpyKind))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol,
                (void*, const void*, size_t, size_t, cudaMemcpyKind))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync,
                (const void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync,
                (void*, const void*, size_t, size_t, cudaMemcpyKind, cudaStream_t))
