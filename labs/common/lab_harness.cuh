// The host side every lab's harness.cu shares (provided code; students do not edit it): device
// memory that frees itself, the launch-shape check, recording a trace for a scenario, and waiting
// for a launch while collecting the simulator's reports. CUDA host code: harness files (.cu)
// include it, the graded tests (plain C++) do not; synclab_lab.h holds what both use.
//
//   check_shape(blocks, threads);
//   DeviceArray<int> x(1);                 // cudaMalloc; freed when x goes out of scope
//   x.upload({0});
//   TraceScope scope(trace);               // records the launches below when trace names a file
//   kernel<<<blocks, threads>>>(x.ptr);
//   finish_launch(r.reports);              // waits; appends the launch's reports; throws on an error
//   r.value = x.download()[0];
//
// Contents: 1. Device memory  2. Launch shapes  3. Traces  4. Finishing a launch
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/sim_control.h>

#include "synclab_lab.h"

namespace synclab::lab {

// ---- 1. Device memory --------------------------------------------------------------------------

// How many times reset_device() has run in this process. Memory allocated before a reset is gone
// with it: a DeviceArray from an earlier generation must not be freed again.
inline int& device_generation() {
  static int generation = 0;
  return generation;
}

// After a launch that failed: cudaDeviceReset() frees all device memory and clears the sticky
// error (as on a GPU), so that the next run can allocate again.
inline void reset_device() {
  cudaDeviceReset();
  cudaGetLastError();
  ++device_generation();
}

// Pass as DeviceArray's second argument for memory that starts out as zeros.
struct Zeroed {};
inline constexpr Zeroed zeroed{};

// `count` elements of T in device memory that frees itself, so that a graded test that throws
// does not leak into the next one. Failed calls throw CudaFailure (SYNCLAB_LAB_CHECK).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t count = 0;

  explicit DeviceArray(size_t n) : count(n) {
    SYNCLAB_LAB_CHECK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)));
  }
  DeviceArray(size_t n, Zeroed) : DeviceArray(n) { zero(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  // After a stuck launch, before the reset, cudaFree fails quietly (the reset frees it); after the
  // reset the memory is gone and is left alone.
  ~DeviceArray() {
    if (generation_ == device_generation()) cudaFree(ptr);
  }

  size_t bytes() const { return count * sizeof(T); }
  // The simulator's reports name the array so ("polling flags (cudaMalloc #6 (20 bytes)) + 4"): give
  // it the name the kernel's parameter has, the one the student's code uses.
  const DeviceArray& named(const char* name) const {
    synclab::sim::name_allocation(ptr, name);
    return *this;
  }
  void upload(const std::vector<T>& v) {
    SYNCLAB_LAB_CHECK(cudaMemcpy(ptr, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  void zero() { SYNCLAB_LAB_CHECK(cudaMemset(ptr, 0, std::max<size_t>(count, 1) * sizeof(T))); }
  std::vector<T> download() const {
    std::vector<T> v(count);
    SYNCLAB_LAB_CHECK(cudaMemcpy(v.data(), ptr, bytes(), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  int generation_ = device_generation();
};

// ---- 2. Launch shapes --------------------------------------------------------------------------

// Throws std::invalid_argument for a launch shape no GPU takes (a usage error in the harness
// program, a failed case in a graded test).
inline void check_shape(int blocks, int threads) {
  if (blocks < 1 || threads < 1 || threads > 1024)
    throw std::invalid_argument("launch shape <<<" + std::to_string(blocks) + ", " + std::to_string(threads) +
                                ">>> is not valid");
}

// ---- 3. Traces ---------------------------------------------------------------------------------

// Records the launches made while it lives into a trace file, when `path` names one (a scenario,
// `--trace FILE`); does nothing for a null or empty path. Name the regions the viewer should draw
// (synclab_region) before it starts.
struct TraceScope {
  bool on;
  explicit TraceScope(const char* path) : on(path && *path) {
    if (on) synclab::sim::set_trace(path);
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() {
    if (on) synclab::sim::set_trace("");
  }
};

// ---- 4. Finishing a launch ---------------------------------------------------------------------

// What finish_launch does with a launch that did not finish.
enum class OnFailure {
  throw_error,  // throw CudaFailure (a fault, hang, deadlock or bad launch fails the graded case)
  keep_stuck,   // a launch the simulator found stuck (hang, deadlock, out of its step budget) is a
                // result: Finish::stuck, the device left as it is (reset_device() when done with
                // the run's memory); any other error throws
  keep_any,     // every failure is a result (Finish::ok false), and the device is reset at once
};

// How a launch ended.
struct Finish {
  bool ok = true;      // it finished without an error
  bool stuck = false;  // the simulator found it stuck (OnFailure::keep_stuck)
  std::string error;   // CUDA's message when it did not finish
};

// A report that says a launch got stuck: it never ends by itself.
inline bool is_stuck_report(const Report& r) {
  return r.kind == "hang" || r.kind == "deadlock" || r.kind == "budget";
}

// Waits for the launch just made and appends its reports to `reports` (none on a GPU), then deals
// with a failure as `on_failure` says. A thrown CudaFailure names the line of the harness that
// called finish_launch ("labs/01-data-races/harness.cu:120: sync failed: ..."), not this header:
// `file` and `line` default to the caller's.
inline Finish finish_launch(std::vector<Report>& reports, OnFailure on_failure = OnFailure::throw_error,
                            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  const std::vector<Report> now = last_reports();
  reports.insert(reports.end(), now.begin(), now.end());
  Finish f;
  const cudaError_t error = launch != cudaSuccess ? launch : sync;
  if (error == cudaSuccess) return f;
  f.ok = false;
  f.error = cudaGetErrorString(error);
  switch (on_failure) {
    case OnFailure::throw_error:
      break;
    case OnFailure::keep_stuck:
      if (launch == cudaSuccess && std::any_of(now.begin(), now.end(), is_stuck_report)) {
        f.stuck = true;
        return f;
      }
      break;
    case OnFailure::keep_any:
      reset_device();
      return f;
  }
  throw_cuda_failure(file, line, launch != cudaSuccess ? "launch" : "sync", f.error.c_str());
}

}  // namespace synclab::lab
