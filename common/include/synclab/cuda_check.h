// Error checks for CUDA runtime calls, shared by the labs, the fixtures and the test programs.
//
//   CHECK(cudaMalloc(&p, bytes));   // stops the program with file:line, the call and the error
//   kernel<<<g, b>>>(...);
//   CHECK_KERNEL();                 // launch errors, then errors while the kernel ran
//
// On the simulator a kernel that hangs, deadlocks or faults makes cudaDeviceSynchronize() (or
// the next call) fail, so a program stops at the first CHECK after it, once the simulator has
// printed its report.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                            \
  do {                                                                                                         \
    cudaError_t err_ = (call);                                                                                 \
    if (err_ != cudaSuccess) {                                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_), \
                   cudaGetErrorName(err_));                                                                    \
      std::exit(1);                                                                                            \
    }                                                                                                          \
  } while (0)

#define CHECK_KERNEL()              \
  do {                              \
    CHECK(cudaGetLastError());      \
    CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace synclab {

// Prints the verdict line that test scripts look for ("PASS name" or "FAIL name") and returns
// the exit status for main().
inline int verdict(const char* name, bool ok) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  return ok ? 0 : 1;
}

}  // namespace synclab
