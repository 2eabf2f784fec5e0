// cub_primitives (clean): correct library code must not raise false alarms. CUB's
// BlockReduce, BlockScan (one TempStorage reused with __syncthreads() between uses) and
// WarpReduce (one TempStorage per warp), two blocks of 128 threads.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include "checks.h"

constexpr int kThreads = 128;
constexpr int kBlocks = 2;
constexpr int kWarps = kThreads / 32;

using Reduce = cub::BlockReduce<int, kThreads>;
using Scan = cub::BlockScan<int, kThreads>;
using WarpReduce = cub::WarpReduce<int>;

__global__ void prims(const int* in, int* block_sum, int* block_max, int* scan_out, int* warp_sums) {
  __shared__ union {
    Reduce::TempStorage reduce;
    Scan::TempStorage scan;
  } tmp;
  __shared__ WarpReduce::TempStorage warp_tmp[kWarps];
  const int t = threadIdx.x, g = blockIdx.x * kThreads + t;
  const int v = in[g];
  const int sum = Reduce(tmp.reduce).Sum(v);
  __syncthreads();
  const int mx = Reduce(tmp.reduce).Reduce(v, ::cuda::maximum<>{});
  __syncthreads();
  int excl, total;
  Scan(tmp.scan).ExclusiveSum(v, excl, total);
  __syncthreads();
  int incl;
  Scan(tmp.scan).InclusiveSum(v, incl);
  scan_out[g] = excl + incl + (t == 0 ? total - sum : 0);
  const int ws = WarpReduce(warp_tmp[t / 32]).Sum(v);
  if (t % 32 == 0) warp_sums[blockIdx.x * kWarps + t / 32] = ws;
  if (t == 0) {
    block_sum[blockIdx.x] = sum;
    block_max[blockIdx.x] = mx;
  }
}

int main() {
  const int n = kThreads * kBlocks;
  static int h_in[n], h_scan[n];
  int h_sum[kBlocks], h_max[kBlocks], h_warp[kBlocks * kWarps];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 101 - 50;
  int *in, *sum, *mx, *scan, *warp;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&scan, sizeof h_scan));
  CHECK(cudaMalloc(&sum, sizeof h_sum));
  CHECK(cudaMalloc(&mx, sizeof h_max));
  CHECK(cudaMalloc(&warp, sizeof h_warp));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  prims<<<kBlocks, kThreads>>>(in, sum, mx, scan, warp);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_scan, scan, sizeof h_scan, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_sum, sum, sizeof h_sum, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_max, mx, sizeof h_max, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_warp, warp, sizeof h_warp, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < kBlocks; ++b) {
    const int* v = h_in + b * kThreads;
    int s = 0, m = v[0];
    for (int t = 0; t < kThreads; ++t) {
      const int excl = s;
      s += v[t];
      m = v[t] > m ? v[t] : m;
      ok = ok && h_scan[b * kThreads + t] == excl + s;
    }
    ok = ok && h_sum[b] == s && h_max[b] == m;
    for (int w = 0; w < kWarps; ++w) {
      int ws = 0;
      for (int l = 0; l < 32; ++l) ws += v[w * 32 + l];
      ok = ok && h_warp[b * kWarps + w] == ws;
    }
  }
  return verdict("cub_primitives", ok);
}
