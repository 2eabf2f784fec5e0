// 042_cg_block_tiles: cooperative groups inside a block: thread_block (sync, ranks, sizes, indices),
// tiled_partition<16> with shfl/shfl_down/shfl_xor/any/all/ballot, cg::reduce (plus, greater) and
// cg::inclusive_scan, a tile of a tile (tiled_partition<4>), tiled_partition<32>, and coalesced_threads()
// in a divergent branch (checked through order-independent totals).
#include "conformance.h"
#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 15;

__global__ void groups(const int* in, int* out, int* totals) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ int buf[BLOCK];
    int tid = block.thread_rank();
    int gid = block.group_index().x * block.size() + tid;
    int v = in[gid];
    int* o = out + gid * K;
    buf[tid] = v;
    block.sync();
    o[0] = buf[(tid + 1) % block.size()] + (int)block.thread_index().x - tid + (int)block.size();

    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    o[1] = t16.thread_rank() + 100 * t16.meta_group_rank() + 10000 * t16.meta_group_size();
    o[2] = cg::reduce(t16, v, cg::plus<int>());
    o[3] = cg::reduce(t16, v, cg::greater<int>());
    o[4] = cg::inclusive_scan(t16, v);
    o[5] = t16.shfl(v, 5);
    o[6] = t16.shfl_down(v, 1);  // the last lane of the tile keeps its value
    o[7] = t16.shfl_xor(v, 3);
    o[8] = (t16.any(v > 900) ? 1 : 0) + (t16.all(v > -1001) ? 2 : 0) + (t16.all(v > 0) ? 4 : 0);
    o[9] = (int)t16.ballot(v & 1);  // bits are tile-relative

    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t16);
    o[10] = cg::reduce(t4, v, cg::plus<int>());
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    o[11] = t32.shfl(v, 31 - (int)t32.thread_rank());

    o[12] = o[13] = o[14] = -1;
    if (v % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        int rank = g.thread_rank(), size = g.size();
        int sum = cg::reduce(g, v, cg::plus<int>());
        int first = g.shfl(v, 0);
        o[12] = rank < size ? 1 : 0;
        o[13] = size;
        if (rank == 0) {  // one contribution per group: totals are independent of how threads were grouped
            atomicAdd(&totals[0], sum);
            atomicAdd(&totals[1], size);
            atomicAdd(&totals[2], 1);
            atomicAdd(&totals[3], first == v ? 1 : 0);
        }
        o[14] = 0;
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(42);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    for (int k = 16; k < 32; ++k) hin[k] = rng.next_int(1, 500);  // one tile with all(v > 0) true
    int *din, *dout, *dtot;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMalloc(&dtot, sizeof(int) * 4));
    CHECK(cudaMemset(dtot, 0, sizeof(int) * 4));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    groups<<<BLOCKS, BLOCK>>>(din, dout, dtot);
    CHECK_KERNEL();
    static int r[N * K];
    int tot[4];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tot, dtot, sizeof tot, cudaMemcpyDeviceToHost));
    const char* names[12] = {"block", "tile ranks", "reduce+", "reduce max", "scan", "shfl", "shfl_down", "shfl_xor",
                             "any/all", "ballot", "tile4 reduce", "tile32 shfl"};
    long long csum = 0;
    int ccount = 0;
    for (int gid = 0; gid < N; ++gid) {
        int tid = gid % BLOCK, b = gid / BLOCK;
        int t0 = gid - gid % 16, l16 = gid % 16;  // tile start, rank in tile
        const int* tv = hin + t0;
        int sum = 0, mx = -100000, scan = 0, odd = 0;
        bool any = false, all1 = true, all0 = true;
        for (int k = 0; k < 16; ++k) {
            sum += tv[k];
            mx = std::max(mx, tv[k]);
            if (k <= l16) scan += tv[k];
            any = any || tv[k] > 900;
            all1 = all1 && tv[k] > -1001;
            all0 = all0 && tv[k] > 0;
            if (tv[k] & 1) odd |= 1 << k;
        }
        int t4s = 0;
        for (int k = gid - gid % 4; k < gid - gid % 4 + 4; ++k) t4s += hin[k];
        int w0 = gid - gid % 32, l32 = gid % 32;
        int e[12] = {hin[b * BLOCK + (tid + 1) % BLOCK] + BLOCK,
                     l16 + 100 * (tid / 16) + 10000 * (BLOCK / 16),
                     sum,
                     mx,
                     scan,
                     tv[5],
                     l16 < 15 ? tv[l16 + 1] : tv[l16],
                     tv[l16 ^ 3],
                     (any ? 1 : 0) + (all1 ? 2 : 0) + (all0 ? 4 : 0),
                     odd,
                     t4s,
                     hin[w0 + 31 - l32]};
        for (int k = 0; k < 12; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        if (hin[gid] % 3 == 0) {
            csum += hin[gid];
            ++ccount;
            // a coalesced group is made of threads of one warp that took the branch
            int inbranch = 0;
            for (int k = w0; k < w0 + 32; ++k) inbranch += hin[k] % 3 == 0;
            t.eq("coalesced rank < size", gid, 1, r[gid * K + 12]);
            t.check(r[gid * K + 13] >= 1 && r[gid * K + 13] <= inbranch,
                    "coalesced size[%d] = %d, expected 1..%d", gid, r[gid * K + 13], inbranch);
        } else {
            t.eq("not in branch", gid, -1, r[gid * K + 14]);
        }
    }
    t.eq("coalesced: sum of group sums", 0, (int)csum, tot[0]);
    t.eq("coalesced: sum of group sizes", 0, ccount, tot[1]);
    t.check(tot[2] >= 1 && tot[2] <= ccount, "coalesced: %d groups for %d threads", tot[2], ccount);
    t.eq("coalesced: shfl(v, 0) is the leader's value", 0, tot[2], tot[3]);
    return t.finish();
}
