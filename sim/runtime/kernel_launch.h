// A kernel launch from the host's side: check the configuration as CUDA does (synchronously,
// so `k<<<...>>>(); cudaGetLastError()` sees configuration errors), pack the arguments into the
// entry's parameter buffer, and queue the run on the device thread, which turns the outcome into
// CUDA's errors (device_context.h).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "sim/runtime/registration.h"

namespace synclab::rt {

struct LaunchRequest {
  dim3 grid, block;
  size_t dynamic_shared = 0;
  cudaStream_t stream = nullptr;
  bool cooperative = false;
};

// `api` names the entry point for messages. `args` holds one pointer per kernel parameter.
cudaError_t launch_kernel(const char* api, KernelRecord* kernel, const LaunchRequest& req, void** args);

// The kernel for a host function pointer, loaded; cudaSuccess or the error (recorded, with a
// message naming `api`).
cudaError_t resolve_kernel(const char* api, const void* host_fun, KernelRecord** out, bool sticky_load);

}  // namespace synclab::rt
