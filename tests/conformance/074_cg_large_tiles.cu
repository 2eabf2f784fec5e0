// 074_cg_large_tiles: cooperative-groups tiles larger than a warp (thread_block_tile<64> and
// <128>): thread_rank, meta_group_rank and meta_group_size, sync() between shared-memory phases,
// and cg::reduce / cg::inclusive_scan across warps, beside the kernel's own shared memory, which
// must come out untouched. On sm_80+ the tiles' scratch lives in the shared memory the system
// reserves (%reserved_smem_offset_*); before sm_80 in a block_tile_memory the kernel provides.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "conformance.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 256;
constexpr int BLOCKS = 3;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 7;

__global__ void tiles(const int* in, int* out) {
    __shared__ cg::block_tile_memory<BLOCK> scratch;
    __shared__ int mine[BLOCK];  // the kernel's own shared memory
    cg::thread_block block = cg::this_thread_block(scratch);
    const int t = block.thread_rank();
    const int g = blockIdx.x * BLOCK + t;
    const int v = in[g];
    mine[t] = v ^ 0x5a5a;
    block.sync();

    cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
    int* o = out + (long long)g * K;
    o[0] = (int)(t64.thread_rank() * 1000 + t64.meta_group_rank() * 10 + t64.meta_group_size());
    o[1] = cg::reduce(t64, v, cg::plus<int>());
    o[2] = cg::reduce(t128, v, cg::greater<int>());
    o[3] = cg::inclusive_scan(t64, v, cg::plus<int>());
    // A shared-memory exchange inside each 128-thread tile, ordered by the tile's sync().
    mine[t] = v * 3;
    t128.sync();
    const int r = t128.thread_rank();
    o[4] = mine[t - r + (r + 37) % 128];
    t128.sync();
    mine[t] = v ^ 0x5a5a;
    block.sync();
    o[5] = mine[(t + 1) % BLOCK];
    o[6] = (int)t128.num_threads();
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(74);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    tiles<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int g = 0; g < N; ++g) {
        const int b = g / BLOCK, t = g % BLOCK;
        const int* blk = hin + b * BLOCK;
        const int t64 = t / 64 * 64, t128 = t / 128 * 128;
        int sum = 0, mx = -1000000, scan = 0;
        for (int j = t64; j < t64 + 64; ++j) sum += blk[j];
        for (int j = t128; j < t128 + 128; ++j) mx = blk[j] > mx ? blk[j] : mx;
        for (int j = t64; j <= t; ++j) scan += blk[j];
        const int rr = t - t128;
        const int want[K] = {(t % 64) * 1000 + (t / 64) * 10 + BLOCK / 64, sum, mx, scan,
                             blk[t128 + (rr + 37) % 128] * 3, blk[(t + 1) % BLOCK] ^ 0x5a5a, 128};
        const char* names[K] = {"ranks", "reduce64", "max128", "scan64", "exchange128", "own_shared", "size128"};
        for (int k = 0; k < K; ++k) c.eq(names[k], g, want[k], r[g * K + k]);
    }
    cudaFree(din);
    cudaFree(dout);
    return c.finish();
}
