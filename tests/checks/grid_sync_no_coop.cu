// grid_sync_no_coop (sync): cooperative_groups::this_grid().sync() in a kernel launched with
// <<<...>>>. Grid synchronization needs cudaLaunchCooperativeKernel; the simulator reports it
// (sync) at the grid.sync() call and the launch fails, as on a GPU.
#include <cooperative_groups.h>

#include "checks.h"

namespace cg = cooperative_groups;

__global__ void phases(int* a, int* out) {
  cg::grid_group grid = cg::this_grid();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i;
  grid.sync();  // EXPECT(sync)
  out[i] = a[(i + 32) % 64];
}

int main() {
  int *a, *out;
  CHECK(cudaMalloc(&a, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  phases<<<2, 32>>>(a, out);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("cudaDeviceSynchronize: %s\n", cudaGetErrorString(err));
  return verdict("grid_sync_no_coop", err != cudaSuccess);
}
