// The functions nvcc's generated host code calls (crt/host_runtime.h, crt/device_functions.h of
// CUDA 12.x and 13.x): registration at start-up, the <<<...>>> configuration stack, and the
// kernel launch of the host stubs. Prototypes follow the toolkit headers exactly; they are
// declared here because those headers are internal to nvcc's compilation.
#include <cuda_runtime_api.h>

#include <vector>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"
#include "sim/runtime/kernel_launch.h"
#include "sim/runtime/registration.h"

#define SIMCUDART_API extern "C" __attribute__((visibility("default")))

using synclab::rt::Registry;

namespace {

struct CallConfiguration {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
};
thread_local std::vector<CallConfiguration> t_configs;

synclab::rt::FatbinRecord* record_of(void** handle, const char* api) {
  auto* fb = Registry::instance().from_handle(handle);
  if (!fb) synclab::rt::diag(std::string(api) + ": unknown fatbinary handle (ignored)");
  return fb;
}

}  // namespace

// ---- registration ------------------------------------------------------------------------------

SIMCUDART_API void** __cudaRegisterFatBinary(void* fatCubin) {
  auto* fb = Registry::instance().add_fatbin(fatCubin);
  return &fb->handle_slot;
}

SIMCUDART_API void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) {
  if (auto* fb = record_of(fatCubinHandle, "__cudaRegisterFatBinaryEnd")) Registry::instance().end_fatbin(fb);
}

SIMCUDART_API void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  if (auto* fb = Registry::instance().from_handle(fatCubinHandle)) Registry::instance().remove_fatbin(fb);
}

SIMCUDART_API void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                          const char* deviceName, int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                                          dim3* /*bDim*/, dim3* /*gDim*/, int* /*wSize*/) {
  auto* fb = record_of(fatCubinHandle, "__cudaRegisterFunction");
  if (!fb) return;
  const char* name = deviceFun ? deviceFun : deviceName;
  Registry::instance().add_kernel(fb, hostFun, name);
}

SIMCUDART_API void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName,
                                     int /*ext*/, size_t size, int constant, int /*global*/) {
  auto* fb = record_of(fatCubinHandle, "__cudaRegisterVar");
  if (!fb) return;
  // deviceAddress is the name as the PTX spells it (mangled for namespace-scope variables).
  const char* name = deviceAddress ? deviceAddress : deviceName;
  Registry::instance().add_var(fb, hostVar, name, size, constant != 0, false, nullptr);
}

SIMCUDART_API void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                                            const char* deviceName, int /*ext*/, size_t size, int constant,
                                            int /*global*/) {
  auto* fb = record_of(fatCubinHandle, "__cudaRegisterManagedVar");
  if (!fb) return;
  const char* name = deviceAddress ? deviceAddress : deviceName;
  Registry::instance().add_var(fb, hostVarPtrAddress, name, size, constant != 0, true, hostVarPtrAddress);
}

// Called before the first host access to a __managed__ variable of the module: load it so the
// variable's pointer slot holds its device address.
SIMCUDART_API char __cudaInitModule(void** fatCubinHandle) {
  auto* fb = Registry::instance().from_handle(fatCubinHandle);
  if (!fb) return 0;
  return Registry::instance().ensure_loaded(fb, "__managed__ variable access", false) == cudaSuccess ? 1 : 0;
}

SIMCUDART_API void __cudaRegisterTexture(void**, const struct textureReference*, const void**, const char* name, int,
                                         int, int) {
  synclab::rt::diag(std::string("texture references are not supported by the simulator (") + (name ? name : "?") + ")");
}

SIMCUDART_API void __cudaRegisterSurface(void**, const struct surfaceReference*, const void**, const char* name, int,
                                         int) {
  synclab::rt::diag(std::string("surface references are not supported by the simulator (") + (name ? name : "?") + ")");
}

// Relocatable device code (-rdc): synclab-nvcc's link step defines nvcc's per-module
// __cudaRegisterLinkedBinary_<id> functions (which the device link would have generated) as
// calls to this one. The modules registered this way are joined into one when loaded.
SIMCUDART_API void synclab_rt_register_linked_binary(void (*callback)(void**), void* fatbin_wrapper,
                                                     void* /*module_id*/, void (* /*dummy*/)(void*)) {
  auto* fb = Registry::instance().add_fatbin(fatbin_wrapper, /*linked=*/true);
  void** handle = &fb->handle_slot;
  if (callback) callback(handle);
  __cudaRegisterFatBinaryEnd(handle);
}

// ---- <<<grid, block, shared, stream>>> -----------------------------------------------------------

SIMCUDART_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   struct CUstream_st* stream) {
  t_configs.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

SIMCUDART_API cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  if (t_configs.empty()) return synclab::rt::set_error(cudaErrorMissingConfiguration);
  CallConfiguration c = t_configs.back();
  t_configs.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.shared;
  if (stream) *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

// ---- the host stubs' launch (CUDA 13: __cudaGetKernel + __cudaLaunchKernel) --------------------

SIMCUDART_API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  if (!kernel) return synclab::rt::set_error(cudaErrorInvalidValue);
  auto* k = Registry::instance().find_kernel(func);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  if (!k)
    return synclab::rt::fail("__cudaGetKernel", cudaErrorInvalidDeviceFunction,
                             "the host stub was never registered as a kernel");
  return cudaSuccess;
}

namespace {

cudaError_t stub_launch(const char* api, cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                        size_t sharedMem, cudaStream_t stream) {
  auto* k = Registry::instance().kernel_from_handle(kernel);
  if (!k) k = Registry::instance().find_kernel(kernel);
  if (!k) {
    if (cudaError_t s = synclab::rt::check_sticky(); s != cudaSuccess) return s;
    return synclab::rt::fail(api, synclab::rt::kNotAKernel, "the kernel handle does not name a registered kernel");
  }
  synclab::rt::LaunchRequest req;
  req.grid = gridDim;
  req.block = blockDim;
  req.dynamic_shared = sharedMem;
  req.stream = stream;
  return synclab::rt::launch_kernel(api, k, req, args);
}

}  // namespace

SIMCUDART_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                             size_t sharedMem, cudaStream_t stream) {
  return stub_launch("kernel launch", kernel, gridDim, blockDim, args, sharedMem, stream);
}

SIMCUDART_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                                  size_t sharedMem, cudaStream_t stream) {
  return stub_launch("kernel launch", kernel, gridDim, blockDim, args, sharedMem, stream);
}
