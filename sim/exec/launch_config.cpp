#include "sim/exec/launch_config.h"

#include <fmt/format.h>

#include "sim/exec/simulator.h"

namespace synclab::sim {

LaunchShapeCheck check_launch_shape(const DeviceProfile& prof, const Dim3& g, const Dim3& b, uint64_t static_shared,
                                    uint64_t dynamic_shared) {
  LaunchShapeCheck c;
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > prof.max_grid[0] || g.y > prof.max_grid[1] || g.z > prof.max_grid[2]) {
    c.problem = LaunchShapeProblem::Grid;
    c.message = fmt::format(
        "the grid ({}, {}, {}) is invalid{}; every dimension must be at least 1 and at most "
        "({}, {}, {}) on this device",
        g.x, g.y, g.z, g.count() == 0 ? " (a dimension is zero)" : "", prof.max_grid[0], prof.max_grid[1],
        prof.max_grid[2]);
    return c;
  }
  const uint64_t threads = b.count();
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > prof.max_block[0] || b.y > prof.max_block[1] ||
      b.z > prof.max_block[2] || threads > prof.max_threads_per_block) {
    c.problem = LaunchShapeProblem::Block;
    c.message = threads == 0 ? fmt::format(
                                   "the block ({}, {}, {}) is invalid (a dimension is zero); every dimension must be "
                                   "at least 1",
                                   b.x, b.y, b.z)
                             : fmt::format(
                                   "the block ({}, {}, {}) is invalid ({} threads); the device allows at most {} "
                                   "threads per block and ({}, {}, {}) per dimension. Use smaller blocks and more "
                                   "of them",
                                   b.x, b.y, b.z, threads, prof.max_threads_per_block, prof.max_block[0],
                                   prof.max_block[1], prof.max_block[2]);
    return c;
  }
  // Dynamic shared memory starts at the next 16-byte boundary after the static variables.
  const uint64_t shared = (static_shared + 15) / 16 * 16 + dynamic_shared;
  if (shared > prof.shared_per_block_optin) {
    c.problem = LaunchShapeProblem::SharedMemory;
    c.message = fmt::format(
        "the block needs {} bytes of shared memory ({} static + {} dynamic); the device allows "
        "{} per block",
        shared, static_shared, dynamic_shared, prof.shared_per_block_optin);
  }
  return c;
}

uint64_t dynamic_shared_limit(const DeviceProfile& prof, uint64_t static_shared, int attribute) {
  if (attribute >= 0) return uint64_t(attribute);
  return prof.shared_per_block > static_shared ? prof.shared_per_block - static_shared : 0;
}

int64_t dynamic_shared_optin_limit(const DeviceProfile& prof, uint64_t static_shared) {
  return int64_t(prof.shared_per_block_optin) - int64_t(static_shared);
}

}  // namespace synclab::sim
