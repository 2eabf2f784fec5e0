// 009_float32_arith: float add/sub/mul/fma/div/sqrt/rcp/min/max/abs/neg/copysign/rounding functions
// compared bit-exactly (IEEE results, specials and denormals included), and the math library
// (sinf/cosf/tanf/expf/exp2f/logf/log2f/powf/atan2f/rsqrtf) and fast intrinsics (__expf/__sinf/__cosf/
// __logf/__fdividef) compared with a tolerance.
#include "conformance.h"

constexpr int N = 256;
constexpr int KE = 19;  // exact results per thread
constexpr int KA = 15;  // approximate results per thread

__global__ void exact_ops(const float* a, const float* b, const float* c, float* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float x = a[i], y = b[i], z = c[i];
    float* out = o + i * KE;
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = __fmaf_rn(x, y, z);
    out[4] = fmaf(x, y, z);
    out[5] = x / y;  // IEEE division (nvcc default -prec-div=true)
    out[6] = sqrtf(fabsf(x));
    out[7] = fminf(x, y);
    out[8] = fmaxf(x, y);
    out[9] = fabsf(x);
    out[10] = -x;
    out[11] = copysignf(x, y);
    out[12] = floorf(x);
    out[13] = ceilf(x);
    out[14] = truncf(x);
    out[15] = roundf(x);
    out[16] = rintf(x);
    out[17] = __frcp_rn(x);
    out[18] = __fsqrt_rn(fabsf(y));
}

__global__ void approx_ops(const float* s, const float* e, const float* l, float* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float xs = s[i], xe = e[i], xl = l[i];
    float* out = o + i * KA;
    out[0] = sinf(xs);
    out[1] = cosf(xs);
    out[2] = tanf(xs * 0.1f);
    out[3] = expf(xe);
    out[4] = exp2f(xe);
    out[5] = logf(xl);
    out[6] = log2f(xl);
    out[7] = powf(xl, 0.75f);
    out[8] = atan2f(xs, xe);
    out[9] = rsqrtf(xl);
    out[10] = __expf(xe * 0.25f);
    out[11] = __sinf(xs * 0.3f);   // |argument| <= pi
    out[12] = __cosf(xs * 0.3f);
    out[13] = __logf(xl);
    out[14] = __fdividef(xs, xl);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(9);
    const float inf = INFINITY;
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, -2.5f, 1e-40f, -3e-39f, 1.17549435e-38f,
                              3.40282347e+38f, inf, -inf, NAN, 1e20f, -1e-20f, 2.5f, 16777215.0f, 0.1f, 7.0f};
    const int ns = sizeof(specials) / sizeof(specials[0]);
    static float ha[N], hb[N], hc[N], hs[N], he[N], hl[N];
    for (int i = 0; i < N; ++i) {
        if (i < ns * 10) {
            ha[i] = specials[i % ns];
            hb[i] = specials[(i / ns + i) % ns];
        } else {
            ha[i] = rng.next_float(-1000.0f, 1000.0f);
            hb[i] = rng.next_float(-10.0f, 10.0f);
        }
        // fminf/fmaxf of zeros of different signs may return either zero: avoid that pair.
        if (ha[i] == 0.0f && hb[i] == 0.0f) hb[i] = 1.0f;
        hc[i] = rng.next_float(-100.0f, 100.0f);
        hs[i] = rng.next_float(-10.0f, 10.0f);
        he[i] = rng.next_float(-20.0f, 20.0f);
        hl[i] = rng.next_float(0.001f, 1000.0f);
    }
    float *da, *db, *dc, *ds, *de, *dl, *dexact, *dapprox;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dc, sizeof hc));
    CHECK(cudaMalloc(&ds, sizeof hs));
    CHECK(cudaMalloc(&de, sizeof he));
    CHECK(cudaMalloc(&dl, sizeof hl));
    CHECK(cudaMalloc(&dexact, sizeof(float) * N * KE));
    CHECK(cudaMalloc(&dapprox, sizeof(float) * N * KA));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(de, he, sizeof he, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl, hl, sizeof hl, cudaMemcpyHostToDevice));
    exact_ops<<<N / 64, 64>>>(da, db, dc, dexact);
    CHECK_KERNEL();
    approx_ops<<<N / 64, 64>>>(ds, de, dl, dapprox);
    CHECK_KERNEL();
    static float rex[N * KE], rap[N * KA];
    CHECK(cudaMemcpy(rex, dexact, sizeof rex, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rap, dapprox, sizeof rap, cudaMemcpyDeviceToHost));

    const char* ne[KE] = {"add", "sub", "mul", "__fmaf_rn", "fmaf", "div", "sqrt", "fmin", "fmax", "fabs", "neg",
                          "copysign", "floor", "ceil", "trunc", "round", "rint", "__frcp_rn", "__fsqrt_rn"};
    for (int i = 0; i < N; ++i) {
        // Reference: host IEEE single arithmetic (SSE, no contraction) and glibc's correctly rounded fmaf;
        // division, reciprocal and square root go through double and are rounded once to float, which
        // is correctly rounded because 53 >= 2*24+2.
        float x = ha[i], y = hb[i], z = hc[i];
        double X = x, Y = y;
        float e[KE];
        e[0] = x + y;
        e[1] = x - y;
        e[2] = x * y;
        e[3] = std::fma(x, y, z);
        e[4] = std::fma(x, y, z);
        e[5] = (float)(X / Y);
        e[6] = (float)std::sqrt(std::fabs(X));
        e[7] = std::isnan(x) ? y : std::isnan(y) ? x : (x < y ? x : y);
        e[8] = std::isnan(x) ? y : std::isnan(y) ? x : (x > y ? x : y);
        e[9] = std::fabs(x);
        e[10] = -x;
        e[11] = std::copysign(x, y);
        e[12] = std::floor(x);
        e[13] = std::ceil(x);
        e[14] = std::trunc(x);
        e[15] = std::round(x);
        e[16] = std::nearbyint(x);
        e[17] = (float)(1.0 / X);
        e[18] = (float)std::sqrt(std::fabs(Y));
        for (int k = 0; k < KE; ++k) t.eq(ne[k], i, e[k], rex[i * KE + k]);
    }
    const char* na[KA] = {"sinf", "cosf", "tanf", "expf", "exp2f", "logf", "log2f", "powf", "atan2f", "rsqrtf",
                          "__expf", "__sinf", "__cosf", "__logf", "__fdividef"};
    for (int i = 0; i < N; ++i) {
        double s = hs[i], e = he[i], l = hl[i];
        double ts = (double)(hs[i] * 0.1f), e4 = (double)(he[i] * 0.25f), s3 = (double)(hs[i] * 0.3f);
        double ex[KA] = {std::sin(s), std::cos(s), std::tan(ts), std::exp(e), std::exp2(e), std::log(l), std::log2(l),
                         std::pow(l, 0.75), std::atan2(s, e), 1.0 / std::sqrt(l), std::exp(e4), std::sin(s3),
                         std::cos(s3), std::log(l), s / l};
        // Tolerances: a few ulp for the library functions, looser for the hardware approximations.
        const double rel[KA] = {4e-7, 4e-7, 1e-6, 4e-7, 4e-7, 4e-7, 4e-7, 1e-6, 6e-7, 4e-7, 2e-6, 0, 0, 1e-6, 6e-7};
        const double abs_[KA] = {1e-7, 1e-7, 1e-7, 0, 0, 1e-7, 1e-7, 0, 1e-7, 0, 0, 1e-6, 1e-6, 1e-6, 0};
        for (int k = 0; k < KA; ++k) t.near(na[k], i, ex[k], rap[i * KA + k], abs_[k], rel[k]);
    }
    return t.finish();
}
