// 037_shfl_partial_masks: shuffles inside warp-divergent code with partial masks: the two half-warps
// take different branches and shuffle/reduce with their own half masks (0x0000ffff / 0xffff0000),
// odd lanes shuffle with 0xaaaaaaaa, and a data-dependent subgroup (ballot mask) broadcasts from its leader.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 7;
constexpr unsigned FULL = 0xffffffffu;

__global__ void partial(const int* in, int* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    int* o = out + gid * K;
    int a, b, c, s;
    if (lane < 16) {
        const unsigned LO = 0x0000ffffu;
        a = __shfl_sync(LO, v, 15 - lane);
        b = __shfl_xor_sync(LO, v, 1);
        c = __shfl_down_sync(LO, v, 2, 16);
        s = v;
        for (int m = 8; m >= 1; m /= 2) s += __shfl_xor_sync(LO, s, m);
    } else {
        const unsigned HI = 0xffff0000u;
        a = __shfl_sync(HI, v, 15 - (lane - 16), 16);  // source lane 31 - (lane - 16)
        b = __shfl_xor_sync(HI, v, 2);
        c = __shfl_up_sync(HI, v, 3, 16);
        s = v;
        for (int m = 8; m >= 1; m /= 2) s -= __shfl_xor_sync(HI, s, m) - s;  // s = 2s - partner's s
    }
    o[0] = a;
    o[1] = b;
    o[2] = c;
    o[3] = s;
    int odd = 0;
    if (lane & 1) {
        const unsigned ODD = 0xaaaaaaaau;
        odd = __shfl_sync(ODD, v, (lane + 2) % 32) + __shfl_xor_sync(ODD, v, 6);
    }
    o[4] = odd;
    unsigned m = __ballot_sync(FULL, v > 0);
    int bcast = 0, cnt = 0;
    if (v > 0) {
        int leader = __ffs(m) - 1;
        bcast = __shfl_sync(m, v, leader);
        cnt = __popc(m);
    }
    o[5] = bcast;
    o[6] = cnt;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(37);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    for (int k = 64; k < 96; ++k) hin[k] = -k;  // a warp with no positive value
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    partial<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"half.idx", "half.xor", "half.up/down", "half.reduce", "odd", "ballot-bcast", "ballot-count"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        // upper half: s = 2s - partner's s, butterfly over 16 lanes (computed step by step)
        int hs[32];
        for (int l = 0; l < 32; ++l) hs[l] = v[l];
        for (int m = 8; m >= 1; m /= 2) {
            int nx[32];
            for (int l = 16; l < 32; ++l) nx[l] = 2 * hs[l] - hs[l ^ m];
            for (int l = 16; l < 32; ++l) hs[l] = nx[l];
        }
        int lo_sum = 0, leader = -1, cnt = 0;
        for (int l = 0; l < 16; ++l) lo_sum += v[l];
        for (int l = 0; l < 32; ++l)
            if (v[l] > 0) { if (leader < 0) leader = l; ++cnt; }
        for (int l = 0; l < 32; ++l) {
            int e[K];
            if (l < 16) {
                e[0] = v[15 - l];
                e[1] = v[l ^ 1];
                e[2] = (l % 16) + 2 < 16 ? v[l + 2] : v[l];
                e[3] = lo_sum;
            } else {
                e[0] = v[31 - (l - 16)];
                e[1] = v[l ^ 2];
                e[2] = (l % 16) >= 3 ? v[l - 3] : v[l];
                e[3] = hs[l];
            }
            e[4] = (l & 1) ? v[(l + 2) % 32] + v[l ^ 6] : 0;
            e[5] = v[l] > 0 ? v[leader] : 0;
            e[6] = v[l] > 0 ? cnt : 0;
            int gid = w * 32 + l;
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
