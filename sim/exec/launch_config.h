// The launch-configuration check that CUDA makes before a kernel runs (grid and block shape,
// shared memory per block), in one place: the runtime (sim/runtime/kernel_launch.cpp) reports its
// findings as CUDA errors, and KernelRun refuses a launch that reaches it some other way.
#pragma once

#include <cstdint>
#include <string>

#include "sim/exec/profile.h"

namespace synclab::sim {

struct Dim3;

enum class LaunchShapeProblem { None, Grid, Block, SharedMemory };

struct LaunchShapeCheck {
  LaunchShapeProblem problem = LaunchShapeProblem::None;
  std::string message;  // what is wrong and what the device allows ("" when nothing is)
  explicit operator bool() const { return problem != LaunchShapeProblem::None; }
};

// The first problem of a launch of `grid` blocks of `block` threads using `static_shared` bytes of
// __shared__ variables and `dynamic_shared` bytes of dynamic shared memory, in the order CUDA
// checks them.
LaunchShapeCheck check_launch_shape(const DeviceProfile& prof, const Dim3& grid, const Dim3& block,
                                    uint64_t static_shared, uint64_t dynamic_shared);

// The dynamic shared memory a kernel with `static_shared` bytes of __shared__ variables may ask
// for at launch: what cudaFuncAttributeMaxDynamicSharedMemorySize set (`attribute`, when >= 0), else
// the default per-block limit less the static bytes.
uint64_t dynamic_shared_limit(const DeviceProfile& prof, uint64_t static_shared, int attribute);
// The most that attribute may be set to: the opt-in per-block limit less the static bytes.
int64_t dynamic_shared_optin_limit(const DeviceProfile& prof, uint64_t static_shared);

}  // namespace synclab::sim
