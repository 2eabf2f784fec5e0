// 053_cub_warp: CUB warp-level primitives: cub::WarpReduce (Sum, Reduce with ::cuda::maximum, Sum over
// the first valid lanes, 16-lane logical warps) and cub::WarpScan (InclusiveSum, ExclusiveSum with the
// warp aggregate, 16-lane logical warps).
#include "conformance.h"
#include <algorithm>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

constexpr int BLOCK = 128;
constexpr int WARPS = BLOCK / 32;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 8;

using WR = cub::WarpReduce<int>;
using WS = cub::WarpScan<int>;
using WR16 = cub::WarpReduce<int, 16>;
using WS16 = cub::WarpScan<int, 16>;

__global__ void warp_prims(const int* in, int* out) {
    __shared__ WR::TempStorage wr[WARPS];
    __shared__ WS::TempStorage ws[WARPS];
    __shared__ WR16::TempStorage wr16[BLOCK / 16];
    __shared__ WS16::TempStorage ws16[BLOCK / 16];
    int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    int w = tid / 32, lane = tid % 32, h = tid / 16;
    int v = in[gid];
    int* o = out + gid * K;
    int sum = WR(wr[w]).Sum(v);  // valid in lane 0
    o[0] = lane == 0 ? sum : 0;
    __syncwarp();
    int mx = WR(wr[w]).Reduce(v, ::cuda::maximum<>{});
    o[1] = lane == 0 ? mx : 0;
    __syncwarp();
    int part = WR(wr[w]).Sum(v, 20);  // lanes 0..19 only
    o[2] = lane == 0 ? part : 0;
    int inc, exc, agg;
    WS(ws[w]).InclusiveSum(v, inc);
    __syncwarp();
    WS(ws[w]).ExclusiveSum(v, exc, agg);
    o[3] = inc;
    o[4] = lane == 0 ? 0 : exc;  // the exclusive result of lane 0 is undefined for ExclusiveSum without an initial value
    o[5] = agg;
    int s16 = WR16(wr16[h]).Sum(v);
    o[6] = tid % 16 == 0 ? s16 : 0;
    int inc16;
    WS16(ws16[h]).InclusiveSum(v, inc16);
    o[7] = inc16;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(53);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-5000, 5000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    warp_prims<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"warp sum", "warp max", "sum of 20 lanes", "inclusive", "exclusive", "aggregate",
                            "sum16", "inclusive16"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        int sum = 0, mx = -1000000, part = 0;
        for (int l = 0; l < 32; ++l) {
            sum += v[l];
            mx = std::max(mx, v[l]);
            if (l < 20) part += v[l];
        }
        int run = 0, run16 = 0, s16[2] = {0, 0};
        for (int l = 0; l < 32; ++l) s16[l / 16] += v[l];
        for (int l = 0; l < 32; ++l) {
            if (l % 16 == 0) run16 = 0;
            int exc = run;
            run += v[l];
            run16 += v[l];
            int e[K] = {l == 0 ? sum : 0, l == 0 ? mx : 0, l == 0 ? part : 0, run, l == 0 ? 0 : exc, sum,
                        l % 16 == 0 ? s16[l / 16] : 0, run16};
            int gid = w * 32 + l;
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
