// cg_tiles (clean): cooperative_groups reductions that must raise no false alarm:
// tiled_partition<32> with shfl_down, tiled_partition<8> with cg::reduce, a dynamic
// tiled_partition(block, 16) exchanging values through shared memory with tile.sync(), and the
// per-warp results combined through shared memory after block.sync().
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "checks.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;
constexpr int kBlocks = 2;

__global__ void tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int warp_part[kThreads / 32];
  __shared__ int buf[kThreads];
  const int t = block.thread_rank();
  const int g = blockIdx.x * kThreads + t;
  const int v = in[g];

  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int s = v;
  for (int d = 16; d > 0; d /= 2) s += warp.shfl_down(s, d);
  if (warp.thread_rank() == 0) warp_part[warp.meta_group_rank()] = s;

  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  const int s8 = cg::reduce(t8, v, cg::plus<int>());

  cg::thread_group t16 = cg::tiled_partition(block, 16);
  buf[t] = v * 3;
  t16.sync();
  const int r = t16.thread_rank();
  const int neighbour = buf[t - r + (r + 1) % 16];

  block.sync();
  int block_total = 0;
  for (int w = 0; w < kThreads / 32; ++w) block_total += warp_part[w];
  out[3 * g] = s8;
  out[3 * g + 1] = neighbour;
  out[3 * g + 2] = block_total;
}

int main() {
  const int n = kThreads * kBlocks;
  static int h_in[n], h_out[3 * n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 29) % 61 - 30;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  tiles<<<kBlocks, kThreads>>>(in, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    const int b = i / kThreads, t = i % kThreads;
    int s8 = 0, total = 0;
    for (int k = t - t % 8; k < t - t % 8 + 8; ++k) s8 += h_in[b * kThreads + k];
    for (int k = 0; k < kThreads; ++k) total += h_in[b * kThreads + k];
    const int r = t % 16;
    ok = ok && h_out[3 * i] == s8 && h_out[3 * i + 1] == 3 * h_in[b * kThreads + t - r + (r + 1) % 16] &&
         h_out[3 * i + 2] == total;
  }
  return verdict("cg_tiles", ok);
}
