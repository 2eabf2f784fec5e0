// 073_redux_member_masks: __reduce_*_sync (redux.sync on sm_80+) where the lanes of one call pass
// different member masks: two halves of a warp, four quarters, odd and even lanes, and a mask
// from __ballot_sync, each group reducing over its own lanes only (add, min, max, and, or, xor;
// signed and unsigned). For targets before sm_80 the same results come from a shuffle fallback.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 8;

__device__ __host__ unsigned group_mask(int kind, int lane, const int* vals_of_warp) {
    switch (kind) {
        case 0: return lane < 16 ? 0x0000ffffu : 0xffff0000u;            // halves
        case 1: return 0xffu << (8 * (lane / 8));                         // quarters
        case 2: return (lane & 1) ? 0xaaaaaaaau : 0x55555555u;            // odd / even lanes
        default: {                                                        // by the sign of the value
            unsigned m = 0;
            for (int j = 0; j < 32; ++j)
                if ((vals_of_warp[j] < 0) == (vals_of_warp[lane] < 0)) m |= 1u << j;
            return m;
        }
    }
}

enum Op { ADD, MIN, MAX, AND, OR, XOR, UMAX };

// One reduction of the lanes of `mask`: redux.sync on sm_80+, else every lane of the mask read
// with __shfl_sync (all of them execute it, each group with its own mask).
__device__ int reduce(unsigned mask, int v, Op op) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    switch (op) {
        case ADD: return __reduce_add_sync(mask, v);
        case MIN: return __reduce_min_sync(mask, v);
        case MAX: return __reduce_max_sync(mask, v);
        case AND: return (int)__reduce_and_sync(mask, (unsigned)v);
        case OR: return (int)__reduce_or_sync(mask, (unsigned)v);
        case XOR: return (int)__reduce_xor_sync(mask, (unsigned)v);
        default: return (int)__reduce_max_sync(mask, (unsigned)v);
    }
#else
    int acc = 0;
    bool first = true;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        int x = __shfl_sync(mask, v, __ffs(m) - 1);
        if (first) { acc = x; first = false; continue; }
        switch (op) {
            case ADD: acc += x; break;
            case MIN: acc = x < acc ? x : acc; break;
            case MAX: acc = x > acc ? x : acc; break;
            case AND: acc &= x; break;
            case OR: acc |= x; break;
            case XOR: acc ^= x; break;
            default: acc = (unsigned)x > (unsigned)acc ? x : acc; break;
        }
    }
    return acc;
#endif
}

__global__ void reduce_groups(const int* in, int* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    int* o = out + (long long)gid * K;
    o[0] = reduce(group_mask(0, lane, nullptr), v, ADD);
    o[1] = reduce(group_mask(1, lane, nullptr), v, MIN);
    o[2] = reduce(group_mask(2, lane, nullptr), v, MAX);
    o[3] = reduce(group_mask(0, lane, nullptr), v, AND);
    o[4] = reduce(group_mask(1, lane, nullptr), v, OR);
    o[5] = reduce(group_mask(2, lane, nullptr), v, XOR);
    o[6] = reduce(group_mask(1, lane, nullptr), v, UMAX);
    const unsigned sign_mask = __ballot_sync(0xffffffffu, v < 0);
    o[7] = reduce(v < 0 ? sign_mask : ~sign_mask, v, ADD);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(73);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    reduce_groups<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int g = 0; g < N; ++g) {
        const int lane = g % 32;
        const int* w = hin + (g - lane);
        auto fold = [&](unsigned m, auto op, long long init) {
            long long acc = init;
            for (int j = 0; j < 32; ++j)
                if (m >> j & 1) acc = op(acc, j);
            return acc;
        };
        const unsigned halves = group_mask(0, lane, w), quarters = group_mask(1, lane, w),
                       parity = group_mask(2, lane, w), sign = group_mask(3, lane, w);
        const int add = (int)(unsigned)fold(halves, [&](long long a, int j) { return (long long)(unsigned)(a + w[j]); }, 0);
        const int mn = (int)fold(quarters, [&](long long a, int j) { return a < w[j] ? a : (long long)w[j]; }, 1LL << 40);
        const int mx = (int)fold(parity, [&](long long a, int j) { return a > w[j] ? a : (long long)w[j]; }, -(1LL << 40));
        const unsigned an = (unsigned)fold(halves, [&](long long a, int j) { return a & (unsigned)w[j]; }, 0xffffffffLL);
        const unsigned orr = (unsigned)fold(quarters, [&](long long a, int j) { return a | (unsigned)w[j]; }, 0);
        const unsigned xr = (unsigned)fold(parity, [&](long long a, int j) { return a ^ (unsigned)w[j]; }, 0);
        const unsigned umx = (unsigned)fold(quarters, [&](long long a, int j) {
            return (unsigned)a > (unsigned)w[j] ? a : (long long)(unsigned)w[j]; }, 0);
        const int sadd = (int)(unsigned)fold(sign, [&](long long a, int j) { return (long long)(unsigned)(a + w[j]); }, 0);
        const int want[K] = {add, mn, mx, (int)an, (int)orr, (int)xr, (int)umx, sadd};
        const char* names[K] = {"add_halves", "min_quarters", "max_parity", "and_halves",
                                "or_quarters", "xor_parity", "umax_quarters", "add_by_sign"};
        for (int k = 0; k < K; ++k) t.eq(names[k], g, want[k], r[g * K + k]);
    }
    cudaFree(din);
    cudaFree(dout);
    return t.finish();
}
