// 062_half_arith: half precision arithmetic from cuda_fp16.h: __hadd/__hsub/__hmul/__hdiv/__hfma/__hneg/
// __habs/__hmin/__hmax, comparisons (__hlt/__heq/__hge), and half2 lane-wise __hadd2/__hmul2/__hfma2, against
// exact host results rounded to half (round to nearest even) by a host-side encoder.
#include "conformance.h"
#include <cuda_fp16.h>

constexpr int N = 512;
constexpr int K = 13;

__global__ void half_ops(const unsigned short* a, const unsigned short* b, const unsigned short* c,
                         unsigned short* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
    unsigned short* out = o + i * K;
    out[0] = __half_as_ushort(__hadd(x, y));
    out[1] = __half_as_ushort(__hsub(x, y));
    out[2] = __half_as_ushort(__hmul(x, y));
    out[3] = __half_as_ushort(__hdiv(x, y));
    out[4] = __half_as_ushort(__hfma(x, y, z));
    out[5] = __half_as_ushort(__hneg(x));
    out[6] = __half_as_ushort(__habs(y));
    out[7] = __half_as_ushort(__hmin(x, y));
    out[8] = __half_as_ushort(__hmax(x, y));
    out[9] = (unsigned short)((__hlt(x, y) ? 1 : 0) | (__heq(x, z) ? 2 : 0) | (__hge(y, z) ? 4 : 0));
    __half2 p = __halves2half2(x, y), q = __halves2half2(z, x);
    __half2 s = __hadd2(p, q), m = __hmul2(p, q), f = __hfma2(p, q, p);
    out[10] = __half_as_ushort(__low2half(s)) ^ __half_as_ushort(__high2half(s));
    out[11] = __half_as_ushort(__high2half(m));
    out[12] = __half_as_ushort(__low2half(f));
}

// double -> half bits, round to nearest even (finite inputs whose exact value is held in the double).
static unsigned short to_half(double f) {
    unsigned short sign = std::signbit(f) ? 0x8000 : 0;
    double a = std::fabs(f);
    if (a == 0.0) return sign;
    int ex;
    std::frexp(a, &ex);
    int e = ex - 1;
    double q = e < -14 ? std::ldexp(1.0, -24) : std::ldexp(1.0, e - 10);
    double n = a / q, fl = std::floor(n);
    bool up = (n - fl > 0.5) || (n - fl == 0.5 && std::fmod(fl, 2.0) == 1.0);
    double v = (fl + (up ? 1.0 : 0.0)) * q;
    if (v > 65504.0) return sign | 0x7c00;
    if (v < std::ldexp(1.0, -14)) return sign | (unsigned short)(v / std::ldexp(1.0, -24));
    std::frexp(v, &ex);
    e = ex - 1;
    return sign | (unsigned short)((e + 15) << 10) | (unsigned short)(v / std::ldexp(1.0, e - 10) - 1024.0);
}
static double from_half(unsigned short h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? std::ldexp((double)m, -24) : std::ldexp((double)(1024 + m), e - 25);
    return (h & 0x8000) ? -v : v;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(62);
    static unsigned short ha[N], hb[N], hc[N];
    auto rnd = [&]() {  // a random half in +-[2^-6, 2^6)
        double v = std::ldexp(rng.next_double(1.0, 2.0), rng.next_int(-6, 5));
        return to_half(rng.next_u32() & 1 ? -v : v);
    };
    for (int k = 0; k < N; ++k) {
        ha[k] = rnd();
        hb[k] = rnd();
        hc[k] = k % 5 == 0 ? ha[k] : rnd();  // some equal pairs for __heq
    }
    hb[0] = ha[0] ^ 0x8000;  // x + (-x)
    unsigned short *da, *db, *dc, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dc, sizeof hc));
    CHECK(cudaMalloc(&dout, sizeof(unsigned short) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    half_ops<<<N / 128, 128>>>(da, db, dc, dout);
    CHECK_KERNEL();
    static unsigned short r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"hadd", "hsub", "hmul", "hdiv", "hfma", "hneg", "habs", "hmin", "hmax", "compare",
                            "hadd2 (lo^hi)", "hmul2.hi", "hfma2.lo"};
    for (int k = 0; k < N; ++k) {
        double x = from_half(ha[k]), y = from_half(hb[k]), z = from_half(hc[k]);
        // exact in double: sums/products of 11-bit significands in this exponent range
        unsigned short e[K];
        e[0] = to_half(x + y);
        e[1] = to_half(x - y);
        e[2] = to_half(x * y);
        e[3] = to_half(x / y);  // double quotient rounded once more: correct since 53 >= 2*11+2
        e[4] = to_half(x * y + z);
        e[5] = ha[k] ^ 0x8000;
        e[6] = hb[k] & 0x7fff;
        e[7] = x < y ? ha[k] : hb[k];
        e[8] = x > y ? ha[k] : hb[k];
        e[9] = (unsigned short)((x < y ? 1 : 0) | (x == z ? 2 : 0) | (y >= z ? 4 : 0));
        e[10] = to_half(x + z) ^ to_half(y + x);
        e[11] = to_half(y * x);
        e[12] = to_half(x * z + x);
        for (int j = 0; j < K; ++j) t.eq(names[j], k, e[j], r[k * K + j]);
    }
    return t.finish();
}
