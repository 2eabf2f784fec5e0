// 010_float_rounding_modes: IEEE rounding-mode intrinsics: __fadd/__fsub/__fmul/__fdiv/__fsqrt/__frcp/
// __fmaf with _rn/_rz/_ru/_rd, and __dadd/__dmul with _rn/_rz/_ru/_rd, against an exact host value
// rounded in the requested direction (exact cancellation gives -0 only when rounding down).
#include "conformance.h"

constexpr int N = 256;
constexpr int KF = 28;  // float results per thread
constexpr int KD = 8;   // double results per thread

__global__ void frnd(const float* a, const float* b, const float* fa, const float* fb, const float* fc, float* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = a[i], y = b[i];
    float* out = o + i * KF;
    out[0] = __fadd_rn(x, y);  out[1] = __fadd_rz(x, y);  out[2] = __fadd_ru(x, y);  out[3] = __fadd_rd(x, y);
    out[4] = __fsub_rn(x, y);  out[5] = __fsub_rz(x, y);  out[6] = __fsub_ru(x, y);  out[7] = __fsub_rd(x, y);
    out[8] = __fmul_rn(x, y);  out[9] = __fmul_rz(x, y);  out[10] = __fmul_ru(x, y); out[11] = __fmul_rd(x, y);
    out[12] = __fdiv_rn(x, y); out[13] = __fdiv_rz(x, y); out[14] = __fdiv_ru(x, y); out[15] = __fdiv_rd(x, y);
    float ax = fabsf(x);
    out[16] = __fsqrt_rn(ax);  out[17] = __fsqrt_rz(ax);  out[18] = __fsqrt_ru(ax);  out[19] = __fsqrt_rd(ax);
    out[20] = __frcp_rn(y);    out[21] = __frcp_rz(y);    out[22] = __frcp_ru(y);    out[23] = __frcp_rd(y);
    float p = fa[i], q = fb[i], r = fc[i];
    out[24] = __fmaf_rn(p, q, r); out[25] = __fmaf_rz(p, q, r); out[26] = __fmaf_ru(p, q, r);
    out[27] = __fmaf_rd(p, q, r);
}

__global__ void drnd(const double* a, const double* b, const double* ma, const double* mb, double* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    double x = a[i], y = b[i], p = ma[i], q = mb[i];
    double* out = o + i * KD;
    out[0] = __dadd_rn(x, y); out[1] = __dadd_rz(x, y); out[2] = __dadd_ru(x, y); out[3] = __dadd_rd(x, y);
    out[4] = __dmul_rn(p, q); out[5] = __dmul_rz(p, q); out[6] = __dmul_ru(p, q); out[7] = __dmul_rd(p, q);
}

enum Mode { RN, RZ, RU, RD };

// Rounds an exact value (held in double) to float in the given direction.
static float round_f(double exact, Mode m) {
    if (exact == 0.0) return m == RD ? -0.0f : 0.0f;  // exact cancellation of nonzero operands
    float f = (float)exact;                           // round to nearest even
    if (m == RZ && std::fabs((double)f) > std::fabs(exact)) f = std::nextafter(f, 0.0f);
    if (m == RU && (double)f < exact) f = std::nextafter(f, INFINITY);
    if (m == RD && (double)f > exact) f = std::nextafter(f, -INFINITY);
    return f;
}
// Rounds an exact value (held in x87 long double, 64-bit significand) to double.
static double round_d(long double exact, Mode m) {
    if (exact == 0.0L) return m == RD ? -0.0 : 0.0;
    double d = (double)exact;
    if (m == RZ && std::fabs((long double)d) > std::fabs(exact)) d = std::nextafter(d, 0.0);
    if (m == RU && (long double)d < exact) d = std::nextafter(d, (double)INFINITY);
    if (m == RD && (long double)d > exact) d = std::nextafter(d, -(double)INFINITY);
    return d;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(10);
    static float ha[N], hb[N], hfa[N], hfb[N], hfc[N];
    static double hda[N], hdb[N], hma[N], hmb[N];
    for (int i = 0; i < N; ++i) {
        // Magnitudes in [2^-5, 2^10): sums and products of two such floats are exact in double.
        auto mag = [&]() { return std::ldexp(rng.next_float(1.0f, 2.0f), rng.next_int(-5, 9)); };
        ha[i] = mag() * (rng.next_u32() & 1 ? -1.0f : 1.0f);
        hb[i] = mag() * (rng.next_u32() & 1 ? -1.0f : 1.0f);
        if (i % 16 == 1) hb[i] = -ha[i];                           // exact cancellation
        if (i % 16 == 2) hb[i] = ha[i];                            // exact doubling
        if (i % 16 == 3) { ha[i] = 1.0f; hb[i] = 3.0f; }            // inexact division
        if (i % 16 == 4) { ha[i] = 16777215.0f; hb[i] = 0.5f; }     // a tie-ish sum at the 2^24 boundary
        if (i % 16 == 5) { ha[i] = 4.0f; hb[i] = 2.0f; }            // exact results
        // fma operands: 12-bit significands for the product, |c| >= 2^-7: the exact result fits in double.
        hfa[i] = (float)rng.next_int(-4095, 4095) / 64.0f;
        hfb[i] = (float)rng.next_int(1, 4095) / 64.0f;
        hfc[i] = std::ldexp(rng.next_float(1.0f, 2.0f), rng.next_int(-7, 9)) * (i % 3 ? 1.0f : -1.0f);
        if (i % 8 == 6) hfc[i] = -hfa[i] * hfb[i];  // exact zero result (product is exact in float here)
        // double add operands: magnitudes in [1, 256): the exact sum fits in 64 significand bits.
        hda[i] = std::ldexp(rng.next_double(1.0, 2.0), rng.next_int(0, 7)) * (rng.next_u32() & 1 ? -1.0 : 1.0);
        hdb[i] = std::ldexp(rng.next_double(1.0, 2.0), rng.next_int(0, 7)) * (rng.next_u32() & 1 ? -1.0 : 1.0);
        if (i % 16 == 7) hdb[i] = -hda[i];
        // double mul operands: 32-bit significands: the exact product fits in 64 significand bits.
        hma[i] = std::ldexp((double)(rng.next_u32() | 1u), -28 + rng.next_int(-3, 3)) * (i % 2 ? -1.0 : 1.0);
        hmb[i] = std::ldexp((double)(rng.next_u32() | 1u), -30) * (i % 5 ? 1.0 : -1.0);
    }
    float *da, *db, *dfa, *dfb, *dfc, *dof;
    double *dda, *ddb, *dma, *dmb, *dod;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dfa, sizeof hfa));
    CHECK(cudaMalloc(&dfb, sizeof hfb));
    CHECK(cudaMalloc(&dfc, sizeof hfc));
    CHECK(cudaMalloc(&dda, sizeof hda));
    CHECK(cudaMalloc(&ddb, sizeof hdb));
    CHECK(cudaMalloc(&dma, sizeof hma));
    CHECK(cudaMalloc(&dmb, sizeof hmb));
    CHECK(cudaMalloc(&dof, sizeof(float) * N * KF));
    CHECK(cudaMalloc(&dod, sizeof(double) * N * KD));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfa, hfa, sizeof hfa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfb, hfb, sizeof hfb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dfc, hfc, sizeof hfc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dda, hda, sizeof hda, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ddb, hdb, sizeof hdb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dma, hma, sizeof hma, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dmb, hmb, sizeof hmb, cudaMemcpyHostToDevice));
    frnd<<<N / 64, 64>>>(da, db, dfa, dfb, dfc, dof);
    CHECK_KERNEL();
    drnd<<<N / 64, 64>>>(dda, ddb, dma, dmb, dod);
    CHECK_KERNEL();
    static float rf[N * KF];
    static double rd[N * KD];
    CHECK(cudaMemcpy(rf, dof, sizeof rf, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rd, dod, sizeof rd, cudaMemcpyDeviceToHost));

    const char* ops[7] = {"fadd", "fsub", "fmul", "fdiv", "fsqrt", "frcp", "fmaf"};
    const char* modes[4] = {"rn", "rz", "ru", "rd"};
    char label[32];
    for (int i = 0; i < N; ++i) {
        double x = ha[i], y = hb[i];
        double exact[7] = {x + y, x - y, x * y, x / y, std::sqrt(std::fabs(x)), 1.0 / y,
                           (double)hfa[i] * (double)hfb[i] + (double)hfc[i]};
        for (int op = 0; op < 7; ++op)
            for (int m = 0; m < 4; ++m) {
                std::snprintf(label, sizeof label, "%s_%s", ops[op], modes[m]);
                t.eq(label, i, round_f(exact[op], (Mode)m), rf[i * KF + op * 4 + m]);
            }
        long double sum = (long double)hda[i] + (long double)hdb[i];
        long double prod = (long double)hma[i] * (long double)hmb[i];
        for (int m = 0; m < 4; ++m) {
            std::snprintf(label, sizeof label, "dadd_%s", modes[m]);
            t.eq(label, i, round_d(sum, (Mode)m), rd[i * KD + m]);
            std::snprintf(label, sizeof label, "dmul_%s", modes[m]);
            t.eq(label, i, round_d(prod, (Mode)m), rd[i * KD + 4 + m]);
        }
    }
    return t.finish();
}
