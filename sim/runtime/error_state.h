// The runtime's error bookkeeping, as CUDA defines it:
//  - the last error of each host thread (cudaGetLastError returns and clears it);
//  - a sticky error: a kernel that faulted, trapped, asserted, hung or deadlocked leaves the
//    device unusable, and every later call that uses the device returns that error (and so
//    makes it the thread's last error) until cudaDeviceReset;
//  - an asynchronous non-sticky error: a launch that the device thread rejected after the call
//    had returned (e.g. a configuration the simulator refused); the next synchronizing call or
//    cudaGetLastError on any thread returns it once.
// And the runtime's diagnostics: one line on stderr per rejected call, naming the call, what was
// wrong and what to do (silenced by SYNCLAB_QUIET=1).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace synclab::rt {

// Records err as the calling thread's last error when it is not cudaSuccess; returns err.
cudaError_t set_error(cudaError_t err);

// Prints "simcudart: <api>: <message>" (unless quiet) and records err. Returns err.
cudaError_t fail(const char* api, cudaError_t err, const std::string& message);

cudaError_t sticky_error();
// Makes err the sticky error (the first one wins, as on CUDA).
void set_sticky_error(cudaError_t err);
// When a sticky error is set, records it as the thread's last error and returns it.
cudaError_t check_sticky();

void post_async_error(cudaError_t err);
// Returns and clears the pending asynchronous error (cudaSuccess when none).
cudaError_t take_async_error();

// cudaGetLastError (reset = true) / cudaPeekAtLastError (reset = false).
cudaError_t last_error(bool reset);

// cudaDeviceReset: forget every error.
void clear_errors();

// The error codes that differ between CUDA 12's runtime and CUDA 13's (whose launches go
// through __cudaLaunchKernel and the driver's checks). CUDA 13 values were measured on an H200
// with driver 580 and cudart 13.0.
constexpr cudaError_t kBadLaunchConfig =  // grid/block dimensions, too much shared memory
    CUDART_VERSION >= 13000 ? cudaErrorInvalidValue : cudaErrorInvalidConfiguration;
constexpr cudaError_t kAboveLaunchBounds =  // more threads than __launch_bounds__ / .reqntid allow
    CUDART_VERSION >= 13000 ? cudaErrorInvalidValue : cudaErrorLaunchOutOfResources;
constexpr cudaError_t kNotAKernel =  // a host function pointer that is not a registered kernel
    CUDART_VERSION >= 13000 ? cudaErrorInvalidResourceHandle : cudaErrorInvalidDeviceFunction;

// The status a synchronizing call returns after its wait: the sticky error, else a pending
// asynchronous error, else cudaSuccess. Records it as the thread's last error.
cudaError_t sync_status();

bool quiet();
void diag(const std::string& line);  // "simcudart: " + line, unless quiet

const char* error_name(int code);    // "cudaErrorInvalidValue"; nullptr when not a CUDA code
const char* error_string(int code);  // CUDA's short text; a generic text for codes we never return

}  // namespace synclab::rt
