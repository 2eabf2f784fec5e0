// 013_conv_saturate_half: float/double -> int/uint/ll/ull intrinsics in all four rounding modes
// (__float2int_rn/rz/ru/rd, __double2ull_rd, ...) with out-of-range values and infinities (saturation) and
// NaN (f32 -> 32-bit gives 0); float -> half in four rounding modes and every half -> float (all 65536).
#include "conformance.h"
#include <cuda_fp16.h>

constexpr int N = 256;
constexpr int K = 16;

__global__ void f2int(const float* f, const double* d, unsigned long long* of, unsigned long long* od) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = f[i];
    double y = d[i];
    unsigned long long* o = of + i * K;
    o[0] = (unsigned long long)(long long)__float2int_rn(x);
    o[1] = (unsigned long long)(long long)__float2int_rz(x);
    o[2] = (unsigned long long)(long long)__float2int_ru(x);
    o[3] = (unsigned long long)(long long)__float2int_rd(x);
    o[4] = __float2uint_rn(x);
    o[5] = __float2uint_rz(x);
    o[6] = __float2uint_ru(x);
    o[7] = __float2uint_rd(x);
    o[8] = (unsigned long long)__float2ll_rn(x);
    o[9] = (unsigned long long)__float2ll_rz(x);
    o[10] = (unsigned long long)__float2ll_ru(x);
    o[11] = (unsigned long long)__float2ll_rd(x);
    o[12] = __float2ull_rn(x);
    o[13] = __float2ull_rz(x);
    o[14] = __float2ull_ru(x);
    o[15] = __float2ull_rd(x);
    o = od + i * K;
    o[0] = (unsigned long long)(long long)__double2int_rn(y);
    o[1] = (unsigned long long)(long long)__double2int_rz(y);
    o[2] = (unsigned long long)(long long)__double2int_ru(y);
    o[3] = (unsigned long long)(long long)__double2int_rd(y);
    o[4] = __double2uint_rn(y);
    o[5] = __double2uint_rz(y);
    o[6] = __double2uint_ru(y);
    o[7] = __double2uint_rd(y);
    o[8] = (unsigned long long)__double2ll_rn(y);
    o[9] = (unsigned long long)__double2ll_rz(y);
    o[10] = (unsigned long long)__double2ll_ru(y);
    o[11] = (unsigned long long)__double2ll_rd(y);
    o[12] = __double2ull_rn(y);
    o[13] = __double2ull_rz(y);
    o[14] = __double2ull_ru(y);
    o[15] = __double2ull_rd(y);
}

__global__ void f2half(const float* f, unsigned short* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = f[i];
    o[i * 4 + 0] = __half_as_ushort(__float2half(x));
    o[i * 4 + 1] = __half_as_ushort(__float2half_rz(x));
    o[i * 4 + 2] = __half_as_ushort(__float2half_ru(x));
    o[i * 4 + 3] = __half_as_ushort(__float2half_rd(x));
}

__global__ void half2f(float* o) {  // every 16-bit pattern, grid-stride
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 65536; i += gridDim.x * blockDim.x)
        o[i] = __half2float(__ushort_as_half((unsigned short)i));
}

enum Mode { RN, RZ, RU, RD };

static long double round_int(long double x, Mode m) {
    switch (m) {
        case RN: return nearbyintl(x);  // default rounding: ties to even
        case RZ: return truncl(x);
        case RU: return ceill(x);
        default: return floorl(x);
    }
}
// Round to an integer, then clamp to [lo, hi] (the PTX cvt rule for float -> integer).
static unsigned long long sat(long double x, Mode m, long double lo, long double hi, bool is_signed) {
    long double r = std::isinf(x) ? x : round_int(x, m);
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return is_signed ? (unsigned long long)(long long)r : (unsigned long long)r;
}

// float -> half bits by scaling to an integer count of the half's quantum and rounding that count.
static unsigned short to_half(float f, Mode m) {
    unsigned short sign = std::signbit(f) ? 0x8000 : 0;
    if (std::isinf(f)) return sign | 0x7c00;
    double a = std::fabs((double)f);
    if (a == 0.0) return sign;
    int ex;
    std::frexp(a, &ex);  // a = mant * 2^ex, mant in [0.5, 1)
    int e = ex - 1;      // a in [2^e, 2^(e+1))
    double q = e < -14 ? std::ldexp(1.0, -24) : std::ldexp(1.0, e - 10);
    double n = a / q;  // exact: a has 24 significant bits
    bool neg = sign != 0;
    bool up;  // round the magnitude up?
    double fl = std::floor(n);
    if (n == fl) up = false;
    else if (m == RN) up = (n - fl > 0.5) || (n - fl == 0.5 && std::fmod(fl, 2.0) == 1.0);
    else if (m == RZ) up = false;
    else if (m == RU) up = !neg;
    else up = neg;
    double v = (fl + (up ? 1.0 : 0.0)) * q;
    if (v > 65504.0) {  // overflow: infinity when rounding away from zero, else the largest finite
        bool to_inf = (m == RN) || (m == RU && !neg) || (m == RD && neg);
        return sign | (to_inf ? 0x7c00 : 0x7bff);
    }
    if (v < std::ldexp(1.0, -14)) return sign | (unsigned short)(v / std::ldexp(1.0, -24));  // subnormal (or 0)
    std::frexp(v, &ex);
    e = ex - 1;
    unsigned short mant = (unsigned short)(v / std::ldexp(1.0, e - 10) - 1024.0);
    return sign | (unsigned short)((e + 15) << 10) | mant;
}

static float from_half(unsigned short h) {
    int s = h >> 15, e = (h >> 10) & 0x1f, mnt = h & 0x3ff;
    float v;
    if (e == 0) v = (float)std::ldexp((double)mnt, -24);
    else if (e == 31) v = mnt ? NAN : INFINITY;
    else v = (float)std::ldexp((double)(1024 + mnt), e - 25);
    return s ? -v : v;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(13);
    const float fs[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 0.49999997f, 2147483520.0f, 2147483648.0f,
                        -2147483648.0f, -2147483904.0f, 4294967040.0f, 4294967296.0f, 1e10f, -1e10f,
                        9.2233715e18f, -9.2233720e18f, 1.8446743e19f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN,
                        -0.75f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 5.9604645e-8f, 2.9802322e-8f, 6.1035156e-5f,
                        1.00048828125f, 1.000732421875f, -1.000732421875f, 3.0517578e-5f};
    const double ds[] = {0.0, -0.0, 0.5, -0.5, 2.5, -3.5, 2147483647.5, 2147483647.4, -2147483648.5,
                         -2147483648.4, 4294967295.5, 4294967294.5, -0.9, 9.2233720368547758e18, -9.2233720368547758e18,
                         1.8446744073709552e19, 1e300, -1e300, INFINITY, -INFINITY, 4503599627370497.0, -1e-300};
    const int nfs = sizeof(fs) / sizeof(fs[0]), nds = sizeof(ds) / sizeof(ds[0]);
    static float hf[N];
    static double hd[N];
    for (int i = 0; i < N; ++i) {
        hf[i] = i < nfs ? fs[i] : std::ldexp(rng.next_float(-1.0f, 1.0f), rng.next_int(-30, 70));
        if (i >= nfs && i % 4 == 0) hf[i] = std::ldexp(rng.next_float(-1.0f, 1.0f), rng.next_int(-26, 17));  // half range
        if (i >= nfs && i % 8 == 1) hf[i] = (float)rng.next_int(-10, 10) + 0.5f;  // ties
        hd[i] = i < nds ? ds[i] : std::ldexp(rng.next_double(-1.0, 1.0), rng.next_int(-10, 70));
        if (i >= nds && i % 8 == 1) hd[i] = (double)rng.next_int(-10, 10) + 0.5;
    }
    float *df, *dhf;
    double* dd;
    unsigned long long *dof, *dod;
    unsigned short* dh;
    CHECK(cudaMalloc(&df, sizeof hf));
    CHECK(cudaMalloc(&dd, sizeof hd));
    CHECK(cudaMalloc(&dof, sizeof(unsigned long long) * N * K));
    CHECK(cudaMalloc(&dod, sizeof(unsigned long long) * N * K));
    CHECK(cudaMalloc(&dh, sizeof(unsigned short) * N * 4));
    CHECK(cudaMalloc(&dhf, sizeof(float) * 65536));
    CHECK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));
    f2int<<<N / 64, 64>>>(df, dd, dof, dod);
    CHECK_KERNEL();
    f2half<<<N / 64, 64>>>(df, dh);
    CHECK_KERNEL();
    half2f<<<8, 256>>>(dhf);
    CHECK_KERNEL();
    static unsigned long long rof[N * K], rod[N * K];
    static unsigned short rh[N * 4];
    static float rhf[65536];
    CHECK(cudaMemcpy(rof, dof, sizeof rof, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rod, dod, sizeof rod, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rh, dh, sizeof rh, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rhf, dhf, sizeof rhf, cudaMemcpyDeviceToHost));

    const long double lo[4] = {-2147483648.0L, 0.0L, -9223372036854775808.0L, 0.0L};
    const long double hi[4] = {2147483647.0L, 4294967295.0L, 9223372036854775807.0L, 18446744073709551615.0L};
    const char* types[4] = {"int", "uint", "ll", "ull"};
    const char* modes[4] = {"rn", "rz", "ru", "rd"};
    char label[48];
    for (int i = 0; i < N; ++i)
        for (int ty = 0; ty < 4; ++ty)
            for (int m = 0; m < 4; ++m) {
                int k = ty * 4 + m;
                bool is_signed = ty % 2 == 0;
                if (std::isnan(hf[i])) {
                    if (ty < 2) {  // PTX: NaN converts to 0 for f32 -> 32-bit destinations
                        std::snprintf(label, sizeof label, "float2%s_%s", types[ty], modes[m]);
                        t.eq(label, i, 0ULL, rof[i * K + k]);
                    }
                } else {
                    std::snprintf(label, sizeof label, "float2%s_%s", types[ty], modes[m]);
                    t.eq(label, i, sat((long double)hf[i], (Mode)m, lo[ty], hi[ty], is_signed), rof[i * K + k]);
                }
                std::snprintf(label, sizeof label, "double2%s_%s", types[ty], modes[m]);
                t.eq(label, i, sat((long double)hd[i], (Mode)m, lo[ty], hi[ty], is_signed), rod[i * K + k]);
            }
    for (int i = 0; i < N; ++i)
        for (int m = 0; m < 4; ++m) {
            std::snprintf(label, sizeof label, "float2half_%s", modes[m]);
            unsigned short got = rh[i * 4 + m];
            if (std::isnan(hf[i])) {
                t.check((got & 0x7c00) == 0x7c00 && (got & 0x3ff) != 0, "%s[%d]: expected a half NaN, got 0x%04x",
                        label, i, got);
            } else {
                t.eq(label, i, to_half(hf[i], (Mode)m), got);
            }
        }
    for (int h = 0; h < 65536; ++h) t.eq("half2float", h, from_half((unsigned short)h), rhf[h]);
    return t.finish();
}
