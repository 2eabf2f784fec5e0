#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void gridsync(int* data, int n) {
  cg::grid_group g = cg::this_grid();
  int i = g.thread_rank();
  if (i < n) data[i] += 1;
  g.sync();
  if (i == 0) {
    int s = 0;
    for (int k = 0; k < n; ++k) s += data[k];
    data[n] = s;
  }
}

__global__ void tiles(int* out) {
  cg::thread_block b = cg::this_thread_block();
  auto t = cg::tiled_partition<32>(b);
  int v = t.thread_rank();
  int s = cg::reduce(t, v, cg::plus<int>());
  t.sync();
  b.sync();
  if (t.thread_rank() == 0) out[b.group_index().x * 32 + t.meta_group_rank()] = s;
}
