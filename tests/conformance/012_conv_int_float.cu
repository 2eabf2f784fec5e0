// 012_conv_int_float: conversions between every integer type (8/16/32/64-bit, signed and unsigned) and
// float/double in both directions (C casts, in range), the directed-rounding int->float intrinsics
// (__int2float_rz, __ll2float_ru, __ull2double_rd, ...), and float<->double (overflow, denormals, NaN).
#include "conformance.h"

constexpr int N = 256;
constexpr int KI = 16;  // int -> fp results per thread, for float and for double
constexpr int KT = 8;   // target integer types

__global__ void int_to_fp(const long long* v, float* of, double* od) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    long long x = v[i];
    unsigned long long ux = (unsigned long long)x;
    float* f = of + i * KI;
    double* d = od + i * KI;
    f[0] = (float)(signed char)x;
    f[1] = (float)(unsigned char)x;
    f[2] = (float)(short)x;
    f[3] = (float)(unsigned short)x;
    f[4] = (float)(int)x;
    f[5] = (float)(unsigned)x;
    f[6] = (float)x;
    f[7] = (float)ux;
    f[8] = __int2float_rz((int)x);
    f[9] = __int2float_ru((int)x);
    f[10] = __int2float_rd((int)x);
    f[11] = __uint2float_rz((unsigned)x);
    f[12] = __ll2float_rz(x);
    f[13] = __ll2float_ru(x);
    f[14] = __ll2float_rd(x);
    f[15] = __ull2float_ru(ux);
    d[0] = (double)(signed char)x;
    d[1] = (double)(unsigned char)x;
    d[2] = (double)(short)x;
    d[3] = (double)(unsigned short)x;
    d[4] = (double)(int)x;
    d[5] = (double)(unsigned)x;
    d[6] = (double)x;
    d[7] = (double)ux;
    d[8] = __ll2double_rz(x);
    d[9] = __ll2double_ru(x);
    d[10] = __ll2double_rd(x);
    d[11] = __ull2double_rd(ux);
    d[12] = __ull2double_ru(ux);
    d[13] = __int2double_rn((int)x);
    d[14] = __uint2double_rn((unsigned)x);
    d[15] = __ull2double_rz(ux);
}

// Each thread converts KT floats and KT doubles, the k-th one in range of the k-th integer type.
__global__ void fp_to_int(const float* f, const double* d, unsigned long long* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float* fi = f + i * KT;
    const double* di = d + i * KT;
    unsigned long long* out = o + i * 2 * KT;
    out[0] = (unsigned long long)(long long)(signed char)fi[0];
    out[1] = (unsigned long long)(unsigned char)fi[1];
    out[2] = (unsigned long long)(long long)(short)fi[2];
    out[3] = (unsigned long long)(unsigned short)fi[3];
    out[4] = (unsigned long long)(long long)(int)fi[4];
    out[5] = (unsigned long long)(unsigned)fi[5];
    out[6] = (unsigned long long)(long long)fi[6];
    out[7] = (unsigned long long)fi[7];
    out[8] = (unsigned long long)(long long)(signed char)di[0];
    out[9] = (unsigned long long)(unsigned char)di[1];
    out[10] = (unsigned long long)(long long)(short)di[2];
    out[11] = (unsigned long long)(unsigned short)di[3];
    out[12] = (unsigned long long)(long long)(int)di[4];
    out[13] = (unsigned long long)(unsigned)di[5];
    out[14] = (unsigned long long)(long long)di[6];
    out[15] = (unsigned long long)di[7];
}

__global__ void fp_to_fp(const float* f, const double* d, double* of2d, float* od2f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    of2d[i] = (double)f[i];
    od2f[i] = (float)d[i];
}

enum Mode { RN, RZ, RU, RD };
// Integer values are exact in x87 long double (64-bit significand); round once in the given direction.
template <class F> static F round_to(long double exact, Mode m) {
    F r = (F)exact;
    if (m == RZ && std::fabs((long double)r) > std::fabs(exact)) r = std::nextafter(r, (F)0);
    if (m == RU && (long double)r < exact) r = std::nextafter(r, (F)INFINITY);
    if (m == RD && (long double)r > exact) r = std::nextafter(r, -(F)INFINITY);
    return r;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(12);
    static long long hv[N];
    const long long edge[] = {0, 1, -1, 127, -128, 255, 256, 32767, -32768, 65535, 0x7fffffffLL, -0x80000000LL,
                              0xffffffffLL, 16777217, -16777217, 0x7fffffffffffffffLL, (long long)0x8000000000000000ULL,
                              (long long)0xffffffffffffffffULL, 9007199254740993LL, (long long)0xfffffffffffff801ULL};
    const int ne = sizeof(edge) / sizeof(edge[0]);
    for (int i = 0; i < N; ++i) {
        if (i < ne) hv[i] = edge[i];
        else if (i % 3 == 0) hv[i] = (long long)rng.next_u64();
        else if (i % 3 == 1) hv[i] = (long long)(rng.next_u64() >> (rng.next_u32() % 64));
        else hv[i] = -(long long)(rng.next_u64() >> (1 + rng.next_u32() % 63));
    }
    // Per-type ranges for float/double -> integer (truncation must land in range).
    const double lo[KT] = {-128.99, 0.0, -32768.9, 0.0, -2.1e9, 0.0, -9e18, 0.0};
    const double hi[KT] = {127.99, 255.99, 32767.9, 65535.9, 2.1e9, 4.2e9, 9e18, 1.8e19};
    static float hf[N * KT];
    static double hd[N * KT];
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < KT; ++k) {
            // small magnitudes with fractions for a third of the threads, the full range otherwise
            double l = lo[k], h = hi[k];
            if (i % 3 == 0) { l = lo[k] < 0 ? -50.75 : 0.0; h = 100.5; }
            hf[i * KT + k] = (float)rng.next_double(l, h);
            if (hf[i * KT + k] < (float)lo[k] || hf[i * KT + k] > (float)hi[k]) hf[i * KT + k] = 1.5f;
            hd[i * KT + k] = rng.next_double(l, h);
        }
    static float hff[N];
    static double hdd[N];
    const float fspecial[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, 3.4e38f, 0.1f, -1.0f / 3.0f};
    const double dspecial[] = {0.0, -0.0, INFINITY, NAN, 1e300, -1e300, 1e-40, 1e-50, 3.4028235677973366e38,
                               0.1, 1.0 / 3.0, 1.0000000596046448, 1.0000000894069672};
    for (int i = 0; i < N; ++i) {
        hff[i] = i < 9 ? fspecial[i] : rng.next_float(-1e6f, 1e6f);
        hdd[i] = i < 13 ? dspecial[i] : std::ldexp(rng.next_double(-1.0, 1.0), rng.next_int(-160, 140));
    }

    long long* dv;
    float *dof, *df, *dff, *dd2f;
    double *dod, *dd, *ddd, *df2d;
    unsigned long long* dint;
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&dof, sizeof(float) * N * KI));
    CHECK(cudaMalloc(&dod, sizeof(double) * N * KI));
    CHECK(cudaMalloc(&df, sizeof hf));
    CHECK(cudaMalloc(&dd, sizeof hd));
    CHECK(cudaMalloc(&dint, sizeof(unsigned long long) * N * 2 * KT));
    CHECK(cudaMalloc(&dff, sizeof hff));
    CHECK(cudaMalloc(&ddd, sizeof hdd));
    CHECK(cudaMalloc(&df2d, sizeof(double) * N));
    CHECK(cudaMalloc(&dd2f, sizeof(float) * N));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dff, hff, sizeof hff, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ddd, hdd, sizeof hdd, cudaMemcpyHostToDevice));
    int_to_fp<<<N / 64, 64>>>(dv, dof, dod);
    CHECK_KERNEL();
    fp_to_int<<<N / 64, 64>>>(df, dd, dint);
    CHECK_KERNEL();
    fp_to_fp<<<N / 64, 64>>>(dff, ddd, df2d, dd2f);
    CHECK_KERNEL();
    static float rof[N * KI], rd2f[N];
    static double rod[N * KI], rf2d[N];
    static unsigned long long rint_[N * 2 * KT];
    CHECK(cudaMemcpy(rof, dof, sizeof rof, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rod, dod, sizeof rod, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rint_, dint, sizeof rint_, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rf2d, df2d, sizeof rf2d, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rd2f, dd2f, sizeof rd2f, cudaMemcpyDeviceToHost));

    const char* fnames[KI] = {"s8->f", "u8->f", "s16->f", "u16->f", "s32->f", "u32->f", "s64->f", "u64->f",
                              "int2float_rz", "int2float_ru", "int2float_rd", "uint2float_rz", "ll2float_rz",
                              "ll2float_ru", "ll2float_rd", "ull2float_ru"};
    const char* dnames[KI] = {"s8->d", "u8->d", "s16->d", "u16->d", "s32->d", "u32->d", "s64->d", "u64->d",
                              "ll2double_rz", "ll2double_ru", "ll2double_rd", "ull2double_rd", "ull2double_ru",
                              "int2double_rn", "uint2double_rn", "ull2double_rz"};
    for (int i = 0; i < N; ++i) {
        // The integer in each type, computed by masking and sign extension, held exactly in long double.
        unsigned long long u = (unsigned long long)hv[i];
        auto sext = [](unsigned long long v, int w) -> long double {
            if (w == 64) return (long double)(long long)v;
            unsigned long long m = 1ULL << (w - 1);
            v &= (1ULL << w) - 1;
            return (long double)((long long)(v ^ m) - (long long)m);
        };
        long double typed[8] = {sext(u, 8), (long double)(u & 0xff), sext(u, 16), (long double)(u & 0xffff),
                                sext(u, 32), (long double)(u & 0xffffffffULL), sext(u, 64), (long double)u};
        float ef[KI];
        double ed[KI];
        for (int k = 0; k < 8; ++k) {
            ef[k] = round_to<float>(typed[k], RN);
            ed[k] = round_to<double>(typed[k], RN);
        }
        ef[8] = round_to<float>(typed[4], RZ);
        ef[9] = round_to<float>(typed[4], RU);
        ef[10] = round_to<float>(typed[4], RD);
        ef[11] = round_to<float>(typed[5], RZ);
        ef[12] = round_to<float>(typed[6], RZ);
        ef[13] = round_to<float>(typed[6], RU);
        ef[14] = round_to<float>(typed[6], RD);
        ef[15] = round_to<float>(typed[7], RU);
        ed[8] = round_to<double>(typed[6], RZ);
        ed[9] = round_to<double>(typed[6], RU);
        ed[10] = round_to<double>(typed[6], RD);
        ed[11] = round_to<double>(typed[7], RD);
        ed[12] = round_to<double>(typed[7], RU);
        ed[13] = round_to<double>(typed[4], RN);
        ed[14] = round_to<double>(typed[5], RN);
        ed[15] = round_to<double>(typed[7], RZ);
        for (int k = 0; k < KI; ++k) {
            t.eq(fnames[k], i, ef[k], rof[i * KI + k]);
            t.eq(dnames[k], i, ed[k], rod[i * KI + k]);
        }
    }
    const char* inames[KT] = {"f->s8", "f->u8", "f->s16", "f->u16", "f->s32", "f->u32", "f->s64", "f->u64"};
    const char* jnames[KT] = {"d->s8", "d->u8", "d->s16", "d->u16", "d->s32", "d->u32", "d->s64", "d->u64"};
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < KT; ++k) {
            // Reference: truncate toward zero in long double, then take the integer's 64-bit pattern.
            long double tf = truncl((long double)hf[i * KT + k]);
            long double td = truncl((long double)hd[i * KT + k]);
            bool is_unsigned = k % 2 == 1;
            unsigned long long ef = is_unsigned ? (unsigned long long)tf : (unsigned long long)(long long)tf;
            unsigned long long ed = is_unsigned ? (unsigned long long)td : (unsigned long long)(long long)td;
            t.eq(inames[k], i, ef, rint_[i * 2 * KT + k]);
            t.eq(jnames[k], i, ed, rint_[i * 2 * KT + KT + k]);
        }
    for (int i = 0; i < N; ++i) {
        t.eq("f->d", i, (double)hff[i], rf2d[i]);
        t.eq("d->f", i, (float)hdd[i], rd2f[i]);
    }
    return t.finish();
}
