// grid_sync_guarded (clean): a kernel that may be launched either way synchronizes the grid only
// when it was launched cooperatively: `if (grid.is_valid()) grid.sync();`. Launched with
// <<<...>>> it never calls grid.sync(), and every thread touches only its own element: no report.
#include <cooperative_groups.h>

#include "checks.h"

namespace cg = cooperative_groups;

__global__ void maybe_sync(int* out) {
  cg::grid_group grid = cg::this_grid();
  const int i = static_cast<int>(grid.thread_rank());
  out[i] = i;
  if (grid.is_valid()) grid.sync();
  out[i] += static_cast<int>(grid.size());
}

int main() {
  int h[64];
  int* out;
  CHECK(cudaMalloc(&out, sizeof h));
  maybe_sync<<<2, 32>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 64; ++i) ok = ok && h[i] == i + 64;
  return verdict("grid_sync_guarded", ok);
}
