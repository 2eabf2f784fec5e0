// Regression test (once a misleading report). grid_group_fault_mislabelled: a kernel that may be
// launched either way synchronizes the grid only when it can: `if (grid.is_valid()) grid.sync();`
// (is_valid() is false without a cooperative launch, so the <<<...>>> launch here never calls
// grid.sync()). It then writes one element past the end of its buffer: an out-of-bounds access.
//
// Expected: the report of the out-of-bounds write at the marked line (kind fault, as for any
// out-of-bounds access; docs/checkers.md files these under memory errors).
// Got: SyncLab ERROR (sync): "grid synchronization without a cooperative launch ... (The fault
// that followed: ...)", which sent the student after a grid.sync() that does not exist.
//
// Why: KernelRun::fault() relabelled EVERY fault of a non-cooperative launch as a grid-sync error
// once the kernel had read %envreg1/%envreg2, and is_valid() reads them. Now only a fault inside
// the toolkit's own code (the grid barrier of cooperative_groups: its innermost source frame is
// a CUDA header) is relabelled; grid_sync_no_coop.cu keeps its sync report.
//
// Run: synclab-run -- ./grid_group_fault_mislabelled
#include <cooperative_groups.h>

#include "checks.h"

namespace cg = cooperative_groups;

__global__ void ranks(int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  const int i = static_cast<int>(grid.thread_rank());
  if (i < n) out[i] = i;
  if (grid.is_valid()) grid.sync();
  if (i == 0) out[n] = static_cast<int>(grid.size());  // EXPECT(fault)
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  ranks<<<2, 32>>>(out, 64);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("cudaDeviceSynchronize: %s\n", cudaGetErrorString(err));
  return verdict("grid_group_fault_mislabelled", err != cudaSuccess);
}
