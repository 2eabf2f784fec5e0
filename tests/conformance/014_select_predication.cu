// 014_select_predication: setp/selp-style code: comparisons of ints, unsigned, floats (ordered and
// unordered, NaN), ternaries selecting values and pointers, short predicated if-bodies, and if/else chains.
#include "conformance.h"
#include <algorithm>

constexpr int N = 512;
constexpr int K = 8;

__global__ void select_kernel(const int* a, const int* b, const float* fa, const float* fb, const int* tab0,
                              const int* tab1, unsigned* flags, int* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i];
    float p = fa[i], q = fb[i];
    unsigned f = 0;
    f |= (unsigned)(p < q) << 0;
    f |= (unsigned)(p <= q) << 1;
    f |= (unsigned)(p > q) << 2;
    f |= (unsigned)(p >= q) << 3;
    f |= (unsigned)(p == q) << 4;
    f |= (unsigned)(p != q) << 5;  // true when either is NaN
    f |= (unsigned)!(p < q) << 6;  // unordered-or-greater-equal
    f |= (unsigned)(p != p) << 7;
    f |= (unsigned)isnan(q) << 8;
    f |= (unsigned)isinf(p) << 9;
    f |= (unsigned)isfinite(q) << 10;
    f |= (unsigned)(signbit(p) != 0) << 11;
    f |= (unsigned)((double)p < (double)q) << 12;
    f |= (unsigned)(x < y && p < q) << 13;
    f |= (unsigned)(x < y || p < q) << 14;
    f |= (unsigned)((x > 0) ^ (y > 0)) << 15;
    flags[i] = f;

    int* out = o + i * K;
    out[0] = x < y ? x : y;                              // selp
    out[1] = (x > 0) - (x < 0);                          // sign
    out[2] = x < -100 ? -100 : (x > 100 ? 100 : x);      // clamp
    const int* tab = (y & 1) ? tab1 : tab0;              // pointer select
    out[3] = tab[i % 16];
    int acc = 0;                                         // short predicated bodies
    if (x > 0) acc += 3;
    if (y < 0) acc -= 5;
    if ((x & 4) != 0) acc ^= 0x55;
    if (p > q) acc += 100;
    out[4] = acc;
    int cls;                                             // if / else-if chain
    if (x < -1000) cls = 0;
    else if (x < 0) cls = 1;
    else if (x == 0) cls = 2;
    else if (x < 1000) cls = 3;
    else cls = 4;
    out[5] = cls;
    float fs = p < q ? p : q;                            // float select (NaN goes to q)
    out[6] = isnan(fs) ? -1 : (int)(fs * 0.0f == 0.0f);  // 1 for finite, 0 for infinities
    out[7] = (unsigned)x > (unsigned)y ? 1 : 2;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(14);
    static int ha[N], hb[N], ht0[16], ht1[16];
    static float hfa[N], hfb[N];
    const float fs[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 2.5f};
    for (int i = 0; i < N; ++i) {
        ha[i] = i % 4 == 0 ? rng.next_int(-2000, 2000) : i % 4 == 1 ? (int)rng.next_u32() : rng.next_int(-3, 3);
        hb[i] = i % 3 == 0 ? rng.next_int(-5, 5) : (int)rng.next_u32();
        hfa[i] = i < 64 ? fs[i % 8] : rng.next_float(-4.0f, 4.0f);
        hfb[i] = i < 64 ? fs[i / 8] : (i % 7 == 0 ? hfa[i] : rng.next_float(-4.0f, 4.0f));
    }
    for (int k = 0; k < 16; ++k) { ht0[k] = k * 11; ht1[k] = -k * 7 - 1; }
    int *da, *db, *dt0, *dt1, *dout;
    float *dfa, *dfb;
    unsigned* dflags;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dt0, sizeof ht0));
    CHECK(cudaMalloc(&dt1, sizeof ht1));
    CHECK(cudaMalloc(&dfa, sizeof hfa));
    CHECK(cudaMalloc(&dfb, sizeof hfb));
    CHECK(cudaMalloc(&dflags, sizeof(unsigned) * N));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dt0, ht0, sizeof ht0, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dt1, ht1, sizeof ht1, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfa, hfa, sizeof hfa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfb, hfb, sizeof hfb, cudaMemcpyHostToDevice));
    select_kernel<<<N / 128, 128>>>(da, db, dfa, dfb, dt0, dt1, dflags, dout);
    CHECK_KERNEL();
    static unsigned rf[N];
    static int ro[N * K];
    CHECK(cudaMemcpy(rf, dflags, sizeof rf, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ro, dout, sizeof ro, cudaMemcpyDeviceToHost));

    const char* names[K] = {"min-select", "sign", "clamp", "ptr-select", "predicated", "chain", "fselect", "ucmp"};
    for (int i = 0; i < N; ++i) {
        int x = ha[i], y = hb[i];
        float p = hfa[i], q = hfb[i];
        bool un = std::isnan(p) || std::isnan(q);  // unordered: every ordered comparison is false
        unsigned f = 0;
        f |= (unsigned)(!un && p < q) << 0;
        f |= (unsigned)(!un && (p < q || p == q)) << 1;
        f |= (unsigned)(!un && q < p) << 2;
        f |= (unsigned)(!un && (q < p || p == q)) << 3;
        f |= (unsigned)(!un && p == q) << 4;
        f |= (unsigned)(un || !(p == q)) << 5;
        f |= (unsigned)(un || !(p < q)) << 6;
        f |= (unsigned)std::isnan(p) << 7;
        f |= (unsigned)std::isnan(q) << 8;
        f |= (unsigned)std::isinf(p) << 9;
        f |= (unsigned)std::isfinite(q) << 10;
        f |= (unsigned)std::signbit(p) << 11;
        f |= (unsigned)(!un && p < q) << 12;
        f |= (unsigned)(x < y && !un && p < q) << 13;
        f |= (unsigned)(x < y || (!un && p < q)) << 14;
        f |= (unsigned)((x > 0) != (y > 0)) << 15;
        t.eq("flags", i, f, rf[i]);

        int e[K];
        e[0] = std::min(x, y);
        e[1] = x > 0 ? 1 : (x < 0 ? -1 : 0);
        e[2] = std::max(-100, std::min(100, x));
        e[3] = (y % 2 != 0) ? ht1[i % 16] : ht0[i % 16];
        int acc = 0;
        if (x > 0) acc += 3;
        if (y < 0) acc -= 5;
        if (x & 4) acc ^= 0x55;
        if (!un && q < p) acc += 100;
        e[4] = acc;
        e[5] = x < -1000 ? 0 : x < 0 ? 1 : x == 0 ? 2 : x < 1000 ? 3 : 4;
        float fs_ = (!un && p < q) ? p : q;
        e[6] = std::isnan(fs_) ? -1 : (std::isinf(fs_) ? 0 : 1);
        e[7] = (unsigned)x > (unsigned)y ? 1 : 2;
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], ro[i * K + k]);
    }
    return t.finish();
}
