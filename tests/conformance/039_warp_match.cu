// 039_warp_match: __match_any_sync on int, unsigned long long and float keys with the full mask and a
// partial mask (lanes 0..19 in a divergent branch), and __match_all_sync with uniform and non-uniform
// keys (mask and predicate).
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 7;
constexpr unsigned FULL = 0xffffffffu;

__global__ void match(const int* in, unsigned* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    unsigned* o = out + gid * K;
    int key = ((v % 5) + 5) % 5;
    o[0] = __match_any_sync(FULL, key);
    o[1] = __match_any_sync(FULL, (unsigned long long)(key & 1) << 40 | (unsigned)(v & 3));
    o[2] = __match_any_sync(FULL, (float)(v % 3) * 0.5f);
    int pred = -1;
    o[3] = __match_all_sync(FULL, v >> 12, &pred);  // uniform in some warps (see host)
    o[4] = (unsigned)pred;
    unsigned part = 0;
    if (lane < 20) part = __match_any_sync(0x000fffffu, key);
    o[5] = part;
    int pred2 = -1;
    o[6] = __match_all_sync(FULL, 7, &pred2) ^ (unsigned)pred2;  // constant key: full mask, pred true
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(39);
    static int hin[N];
    for (int k = 0; k < N; ++k) {
        int w = k / 32;
        // warps 0 and 2: v >> 12 is the same in every lane; others: mixed
        hin[k] = (w % 2 == 0) ? (w + 3) * 4096 + rng.next_int(0, 4095) : rng.next_int(-100000, 100000);
    }
    int* din;
    unsigned* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(unsigned) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    match<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static unsigned r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"any(int)", "any(u64)", "any(float)", "all", "all.pred", "any(partial)", "all(const)"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        long long key[32], key64[32], keyf[32], hi[32];
        for (int l = 0; l < 32; ++l) {
            key[l] = ((v[l] % 5) + 5) % 5;
            key64[l] = ((key[l] & 1) << 40) | (v[l] & 3);
            keyf[l] = v[l] % 3;  // equal floats (v % 3) * 0.5 <=> equal v % 3
            hi[l] = v[l] >= 0 ? v[l] / 4096 : -((-(long long)v[l] + 4095) / 4096);  // v >> 12
        }
        auto same = [](const long long* k, int l, unsigned mask) {
            unsigned m = 0;
            for (int j = 0; j < 32; ++j)
                if (((mask >> j) & 1) && k[j] == k[l]) m |= 1u << j;
            return m;
        };
        bool uniform = true;
        for (int l = 1; l < 32; ++l) uniform = uniform && hi[l] == hi[0];
        for (int l = 0; l < 32; ++l) {
            int gid = w * 32 + l;
            unsigned e[K] = {same(key, l, 0xffffffffu), same(key64, l, 0xffffffffu), same(keyf, l, 0xffffffffu),
                             uniform ? 0xffffffffu : 0u, uniform ? 1u : 0u,
                             l < 20 ? same(key, l, 0x000fffffu) : 0u, 0xffffffffu ^ 1u};
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
