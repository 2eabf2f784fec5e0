// 011_float64_arith: double add/sub/mul/fma/div/sqrt/rcp/min/max/abs/rounding functions bit-exactly
// (specials and denormals included), and double math functions (sin/cos/exp/log/pow/atan2/cbrt/rsqrt)
// within a few ulp.
#include "conformance.h"

constexpr int N = 256;
constexpr int KE = 16;
constexpr int KA = 10;

__global__ void exact_ops(const double* a, const double* b, const double* c, double* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    double x = a[i], y = b[i], z = c[i];
    double* out = o + i * KE;
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = fma(x, y, z);
    out[4] = x / y;
    out[5] = sqrt(fabs(x));
    out[6] = fmin(x, y);
    out[7] = fmax(x, y);
    out[8] = fabs(x);
    out[9] = -x;
    out[10] = floor(x);
    out[11] = ceil(x);
    out[12] = trunc(x);
    out[13] = round(x);
    out[14] = rint(x);
    out[15] = __drcp_rn(y);
}

__global__ void approx_ops(const double* s, const double* e, const double* l, double* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    double xs = s[i], xe = e[i], xl = l[i];
    double* out = o + i * KA;
    out[0] = sin(xs);
    out[1] = cos(xs);
    out[2] = exp(xe);
    out[3] = log(xl);
    out[4] = pow(xl, 1.25);
    out[5] = atan2(xs, xe);
    out[6] = cbrt(xe);
    out[7] = rsqrt(xl);
    out[8] = log10(xl);
    out[9] = tanh(xs * 0.25);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(11);
    const double inf = INFINITY;
    const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 4.9e-324, -2.2250738585072014e-308,
                               1.7976931348623157e308, inf, -inf, NAN, 1e200, -1e-200, 0.1, 9007199254740993.0, 7.0};
    const int ns = sizeof(specials) / sizeof(specials[0]);
    static double ha[N], hb[N], hc[N], hs[N], he[N], hl[N];
    for (int i = 0; i < N; ++i) {
        if (i < ns * 8) {
            ha[i] = specials[i % ns];
            hb[i] = specials[(i / ns + i) % ns];
        } else {
            ha[i] = rng.next_double(-1e6, 1e6);
            hb[i] = rng.next_double(-100.0, 100.0);
        }
        if (ha[i] == 0.0 && hb[i] == 0.0) hb[i] = 2.0;  // fmin/fmax of +0/-0 may return either
        hc[i] = rng.next_double(-1e4, 1e4);
        hs[i] = rng.next_double(-20.0, 20.0);
        he[i] = rng.next_double(-50.0, 50.0);
        hl[i] = rng.next_double(1e-6, 1e6);
    }
    double *da, *db, *dc, *ds, *de, *dl, *dex, *dap;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dc, sizeof hc));
    CHECK(cudaMalloc(&ds, sizeof hs));
    CHECK(cudaMalloc(&de, sizeof he));
    CHECK(cudaMalloc(&dl, sizeof hl));
    CHECK(cudaMalloc(&dex, sizeof(double) * N * KE));
    CHECK(cudaMalloc(&dap, sizeof(double) * N * KA));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(de, he, sizeof he, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl, hl, sizeof hl, cudaMemcpyHostToDevice));
    exact_ops<<<N / 64, 64>>>(da, db, dc, dex);
    CHECK_KERNEL();
    approx_ops<<<N / 64, 64>>>(ds, de, dl, dap);
    CHECK_KERNEL();
    static double rex[N * KE], rap[N * KA];
    CHECK(cudaMemcpy(rex, dex, sizeof rex, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rap, dap, sizeof rap, cudaMemcpyDeviceToHost));

    const char* ne[KE] = {"add", "sub", "mul", "fma", "div", "sqrt", "fmin", "fmax", "fabs", "neg", "floor", "ceil",
                          "trunc", "round", "rint", "__drcp_rn"};
    for (int i = 0; i < N; ++i) {
        // Reference: host IEEE double arithmetic (SSE2) and glibc's correctly rounded fma and sqrt.
        double x = ha[i], y = hb[i], z = hc[i];
        double e[KE] = {x + y,
                        x - y,
                        x * y,
                        std::fma(x, y, z),
                        x / y,
                        std::sqrt(std::fabs(x)),
                        std::isnan(x) ? y : std::isnan(y) ? x : (x < y ? x : y),
                        std::isnan(x) ? y : std::isnan(y) ? x : (x > y ? x : y),
                        std::fabs(x),
                        -x,
                        std::floor(x),
                        std::ceil(x),
                        std::trunc(x),
                        std::round(x),
                        std::nearbyint(x),
                        1.0 / y};
        for (int k = 0; k < KE; ++k) t.eq(ne[k], i, e[k], rex[i * KE + k]);
    }
    const char* na[KA] = {"sin", "cos", "exp", "log", "pow", "atan2", "cbrt", "rsqrt", "log10", "tanh"};
    for (int i = 0; i < N; ++i) {
        // Reference: x87 long double evaluations, compared within a few double ulp.
        long double s = hs[i], e = he[i], l = hl[i];
        long double ex[KA] = {sinl(s), cosl(s), expl(e), logl(l), powl(l, 1.25L), atan2l(s, e), cbrtl(e),
                              1.0L / sqrtl(l), log10l(l), tanhl((long double)(hs[i] * 0.25))};
        for (int k = 0; k < KA; ++k) t.near(na[k], i, (double)ex[k], rap[i * KA + k], 1e-15, 1e-15);
    }
    return t.finish();
}
