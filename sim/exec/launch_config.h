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

}  // namespace synclab::sim
