// Tiny self-checks for the runtime's end-to-end programs. Each program runs on both backends
// (simulator and GPU), checks what CUDA promises, prints one line per failed check, and ends
// with "PASS <name>" (exit 0) or "FAIL <name>: N checks failed" (exit 1).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

static int g_failed_checks = 0;

// Launch errors that CUDA 13's runtime reports differently from CUDA 12's (measured on an H200,
// driver 580, cudart 13.0: every bad configuration is cudaErrorInvalidValue there).
#if CUDART_VERSION >= 13000
#define BAD_LAUNCH_CONFIG cudaErrorInvalidValue
#define NOT_A_KERNEL cudaErrorInvalidResourceHandle
#else
#define BAD_LAUNCH_CONFIG cudaErrorInvalidConfiguration
#define NOT_A_KERNEL cudaErrorInvalidDeviceFunction
#endif

#define CHECK_ERR(call, expected)                                                                  \
  do {                                                                                             \
    cudaError_t got_ = (call);                                                                     \
    if (got_ != (expected)) {                                                                      \
      std::printf("check failed at %s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call, \
                  cudaGetErrorName(got_), cudaGetErrorName(expected));                             \
      ++g_failed_checks;                                                                           \
    }                                                                                              \
  } while (0)

#define CHECK_OK(call) CHECK_ERR(call, cudaSuccess)

#define CHECK_TRUE(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::printf("check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
      ++g_failed_checks;                                                                   \
    }                                                                                      \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long a_ = (long long)(a), b_ = (long long)(b);                                            \
    if (a_ != b_) {                                                                                \
      std::printf("check failed at %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, \
                  a_, #b, b_);                                                                     \
      ++g_failed_checks;                                                                           \
    }                                                                                              \
  } while (0)

static inline int finish(const char* name) {
  std::fflush(stdout);
  if (g_failed_checks) {
    std::printf("FAIL %s: %d checks failed\n", name, g_failed_checks);
    return 1;
  }
  std::printf("PASS %s\n", name);
  return 0;
}
