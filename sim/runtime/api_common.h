// Shared by the api_*.cpp files that define the CUDA runtime API: export macros and the
// preamble every device-touching call starts with.
#pragma once

#include <cuda_runtime_api.h>

#include "sim/runtime/device_context.h"
#include "sim/runtime/error_state.h"

#define SIMCUDART_API extern "C" __attribute__((visibility("default")))

// A second exported name for a function defined in the same file (the _ptds/_ptsz variants a
// program compiled with --default-stream per-thread calls; one FIFO serves both).
#define SIMCUDART_ALIAS(ret, alias_name, target, params) \
  extern "C" __attribute__((visibility("default"), alias(#target))) ret alias_name params;

// Starts the device and returns the sticky error, if any, from the calling function.
#define SIMCUDART_PREAMBLE()                                                                         \
  do {                                                                                               \
    ::synclab::rt::ensure_device_started();                                                          \
    if (cudaError_t sticky_ = ::synclab::rt::check_sticky(); sticky_ != cudaSuccess) return sticky_; \
  } while (0)
