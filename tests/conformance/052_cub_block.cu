// 052_cub_block: CUB block-wide primitives: cub::BlockLoad/cub::BlockStore (warp-transpose layout,
// and a guarded partial tile), cub::BlockReduce (Sum, Reduce with ::cuda::maximum, Sum over a partial
// tile) and cub::BlockScan (InclusiveSum, ExclusiveSum with the block aggregate, ExclusiveScan with max).
#include "conformance.h"
#include <algorithm>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

constexpr int BLOCK = 128;
constexpr int ITEMS = 4;
constexpr int TILE = BLOCK * ITEMS;
constexpr int BLOCKS = 3;
constexpr int N = TILE * BLOCKS - 420;  // the last tile is partial (92 valid items)
constexpr int OOB = -7;                 // value for out-of-range items of the partial tile

using Load = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using Reduce = cub::BlockReduce<int, BLOCK>;
using Scan = cub::BlockScan<int, BLOCK>;

__global__ void block_prims(const int* in, int* inc_out, int* exc_out, int* max_scan_out, int* agg) {
    __shared__ union {
        Load::TempStorage load;
        Store::TempStorage store;
        Reduce::TempStorage reduce;
        Scan::TempStorage scan;
    } tmp;
    int base = blockIdx.x * TILE;
    int valid = N - base < TILE ? N - base : TILE;
    int items[ITEMS];
    Load(tmp.load).Load(in + base, items, valid, OOB);  // guarded: items past `valid` get OOB
    __syncthreads();
    int sum = Reduce(tmp.reduce).Sum(items);
    __syncthreads();
    int mx = Reduce(tmp.reduce).Reduce(items, ::cuda::maximum<>{});
    __syncthreads();
    int first = Reduce(tmp.reduce).Sum(items[0], valid < BLOCK ? valid : BLOCK);  // only the first threads
    __syncthreads();
    int inc[ITEMS], exc[ITEMS], mscan[ITEMS], total;
    Scan(tmp.scan).InclusiveSum(items, inc);
    __syncthreads();
    Scan(tmp.scan).ExclusiveSum(items, exc, total);
    __syncthreads();
    Scan(tmp.scan).ExclusiveScan(items, mscan, -1000000, ::cuda::maximum<>{});
    __syncthreads();
    Store(tmp.store).Store(inc_out + base, inc, valid);
    __syncthreads();
    Store(tmp.store).Store(exc_out + base, exc, valid);
    __syncthreads();
    Store(tmp.store).Store(max_scan_out + base, mscan, valid);
    if (threadIdx.x == 0) {
        agg[blockIdx.x * 4 + 0] = sum;  // reductions are valid in thread 0
        agg[blockIdx.x * 4 + 1] = mx;
        agg[blockIdx.x * 4 + 2] = first;
        agg[blockIdx.x * 4 + 3] = total;  // the scan aggregate is valid in every thread
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(52);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    int *din, *dinc, *dexc, *dmax, *dagg;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dinc, sizeof hin));
    CHECK(cudaMalloc(&dexc, sizeof hin));
    CHECK(cudaMalloc(&dmax, sizeof hin));
    CHECK(cudaMalloc(&dagg, sizeof(int) * 4 * BLOCKS));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    block_prims<<<BLOCKS, BLOCK>>>(din, dinc, dexc, dmax, dagg);
    CHECK_KERNEL();
    static int rinc[N], rexc[N], rmax[N];
    int ragg[4 * BLOCKS];
    CHECK(cudaMemcpy(rinc, dinc, sizeof rinc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rexc, dexc, sizeof rexc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rmax, dmax, sizeof rmax, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ragg, dagg, sizeof ragg, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        int base = b * TILE;
        // the tile as loaded: in-range items, then OOB for the rest of a partial tile (blocked arrangement:
        // thread i holds items i*ITEMS .. i*ITEMS+ITEMS-1, so scan order is tile order)
        int tile[TILE];
        for (int k = 0; k < TILE; ++k) tile[k] = base + k < N ? hin[base + k] : OOB;
        int sum = 0, mx = -1000000, run = 0, runmax = -1000000, first = 0;
        int valid = std::min(N - base, TILE);
        for (int k = 0; k < TILE; ++k) {
            sum += tile[k];
            mx = std::max(mx, tile[k]);
        }
        // Sum(items[0], n): item 0 of threads 0..n-1, i.e. tile[i * ITEMS]
        for (int i = 0; i < std::min(valid, BLOCK); ++i) first += tile[i * ITEMS];
        for (int k = 0; k < TILE; ++k) {
            if (base + k < N) {
                t.eq("exclusive sum", base + k, run, rexc[base + k]);
                t.eq("exclusive max scan", base + k, runmax, rmax[base + k]);
            }
            run += tile[k];
            runmax = std::max(runmax, tile[k]);
            if (base + k < N) t.eq("inclusive sum", base + k, run, rinc[base + k]);
        }
        t.eq("block sum", b, sum, ragg[b * 4 + 0]);
        t.eq("block max", b, mx, ragg[b * 4 + 1]);
        t.eq("partial sum", b, first, ragg[b * 4 + 2]);
        t.eq("scan aggregate", b, sum, ragg[b * 4 + 3]);
    }
    return t.finish();
}
