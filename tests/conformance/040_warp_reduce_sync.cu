// 040_warp_reduce_sync: __reduce_add/min/max_sync (int and unsigned) and __reduce_and/or/xor_sync with the
// full mask and with a data-dependent partial mask (the lanes holding even values). These are sm_80+
// instructions (redux.sync); for older targets the same results come from a shuffle fallback.
#include "conformance.h"
#include <algorithm>

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 13;
constexpr unsigned FULL = 0xffffffffu;

enum Op { ADD, MIN, MAX, AND, OR, XOR };

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800
// Fallback: read every lane of the mask with __shfl_sync (the source lanes are all in the mask).
template <class T>
__device__ T reduce_fallback(unsigned mask, T v, Op op) {
    T acc = 0;
    bool first = true;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        T x = __shfl_sync(mask, v, __ffs(m) - 1);
        if (first) { acc = x; first = false; continue; }
        switch (op) {
            case ADD: acc += x; break;
            case MIN: acc = x < acc ? x : acc; break;
            case MAX: acc = x > acc ? x : acc; break;
            case AND: acc &= x; break;
            case OR: acc |= x; break;
            default: acc ^= x; break;
        }
    }
    return acc;
}
#endif

__device__ int r_add(unsigned m, int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(m, v);
#else
    return reduce_fallback(m, v, ADD);
#endif
}
__device__ unsigned r_addu(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(m, v);
#else
    return reduce_fallback(m, v, ADD);
#endif
}
__device__ int r_min(unsigned m, int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(m, v);
#else
    return reduce_fallback(m, v, MIN);
#endif
}
__device__ int r_max(unsigned m, int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(m, v);
#else
    return reduce_fallback(m, v, MAX);
#endif
}
__device__ unsigned r_minu(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(m, v);
#else
    return reduce_fallback(m, v, MIN);
#endif
}
__device__ unsigned r_maxu(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(m, v);
#else
    return reduce_fallback(m, v, MAX);
#endif
}
__device__ unsigned r_and(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_and_sync(m, v);
#else
    return reduce_fallback(m, v, AND);
#endif
}
__device__ unsigned r_or(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_or_sync(m, v);
#else
    return reduce_fallback(m, v, OR);
#endif
}
__device__ unsigned r_xor(unsigned m, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_xor_sync(m, v);
#else
    return reduce_fallback(m, v, XOR);
#endif
}

__global__ void reduce(const int* in, unsigned* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    unsigned u = (unsigned)v * 2654435761u;
    unsigned* o = out + gid * K;
    o[0] = (unsigned)r_add(FULL, v);
    o[1] = r_addu(FULL, u);
    o[2] = (unsigned)r_min(FULL, v);
    o[3] = (unsigned)r_max(FULL, v);
    o[4] = r_minu(FULL, u);
    o[5] = r_maxu(FULL, u);
    o[6] = r_and(FULL, u | 0x01010101u);
    o[7] = r_or(FULL, u & 0x0f0f0f0fu);
    o[8] = r_xor(FULL, u);
    unsigned even = __ballot_sync(FULL, (v & 1) == 0);
    unsigned pa = 0, pmin = 0, pmax = 0, px = 0;
    if ((v & 1) == 0) {
        pa = (unsigned)r_add(even, v);
        pmin = (unsigned)r_min(even, v);
        pmax = r_maxu(even, u);
        px = r_xor(even, u);
    }
    o[9] = pa;
    o[10] = pmin;
    o[11] = pmax;
    o[12] = px;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(40);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000000, 1000000);
    for (int k = 96; k < 128; ++k) hin[k] = 2 * k;  // a warp where every lane is even (partial mask = full)
    int* din;
    unsigned* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(unsigned) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    reduce<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static unsigned r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"add", "add.u", "min", "max", "min.u", "max.u", "and", "or", "xor",
                            "partial.add", "partial.min", "partial.max.u", "partial.xor"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        unsigned u[32];
        for (int l = 0; l < 32; ++l) u[l] = (unsigned)v[l] * 2654435761u;
        long long add = 0, padd = 0;
        unsigned addu = 0, minu = ~0u, maxu = 0, a = ~0u, o = 0, x = 0, pmaxu = 0, px = 0;
        int mn = 0x7fffffff, mx = (int)0x80000000, pmin = 0x7fffffff;
        for (int l = 0; l < 32; ++l) {
            add += v[l];
            addu += u[l];
            mn = std::min(mn, v[l]);
            mx = std::max(mx, v[l]);
            minu = std::min(minu, u[l]);
            maxu = std::max(maxu, u[l]);
            a &= u[l] | 0x01010101u;
            o |= u[l] & 0x0f0f0f0fu;
            x ^= u[l];
            if ((v[l] & 1) == 0) {
                padd += v[l];
                pmin = std::min(pmin, v[l]);
                pmaxu = std::max(pmaxu, u[l]);
                px ^= u[l];
            }
        }
        for (int l = 0; l < 32; ++l) {
            bool ev = (v[l] & 1) == 0;
            unsigned e[K] = {(unsigned)add, addu, (unsigned)mn, (unsigned)mx, minu, maxu, a, o, x,
                             ev ? (unsigned)padd : 0u, ev ? (unsigned)pmin : 0u, ev ? pmaxu : 0u, ev ? px : 0u};
            int gid = w * 32 + l;
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
