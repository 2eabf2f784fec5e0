// 006_funnel_shift: __funnelshift_l/_lc/_r/_rc (shf.l/shf.r with wrap and clamp) on all shift amounts
// 0..40 and a few large ones, plus a 64-bit rotate written with them.
#include "conformance.h"

constexpr int N = 256;
constexpr int K = 6;

__global__ void funnel(const unsigned* lo, const unsigned* hi, const unsigned* sh, unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    unsigned l = lo[i], h = hi[i], s = sh[i];
    unsigned* out = o + i * K;
    out[0] = __funnelshift_l(l, h, s);
    out[1] = __funnelshift_lc(l, h, s);
    out[2] = __funnelshift_r(l, h, s);
    out[3] = __funnelshift_rc(l, h, s);
    // 64-bit rotate right of h:l by s & 63 built from two funnel shifts.
    unsigned r = s & 63;
    unsigned a = r < 32 ? l : h, b = r < 32 ? h : l;
    out[4] = __funnelshift_r(a, b, r);  // low word of the rotated value
    out[5] = __funnelshift_r(b, a, r);  // high word
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(6);
    static unsigned hlo[N], hhi[N], hs[N];
    for (int i = 0; i < N; ++i) {
        hlo[i] = rng.next_u32();
        hhi[i] = rng.next_u32();
        hs[i] = i < 41 * 4 ? (unsigned)(i % 41) : (i % 2 ? rng.next_u32() : 32 + rng.next_u32() % 100);
    }
    hlo[0] = 0x89abcdefu;
    hhi[0] = 0x01234567u;
    unsigned *dl, *dh, *ds, *dout;
    CHECK(cudaMalloc(&dl, sizeof hlo));
    CHECK(cudaMalloc(&dh, sizeof hhi));
    CHECK(cudaMalloc(&ds, sizeof hs));
    CHECK(cudaMalloc(&dout, sizeof(unsigned) * N * K));
    CHECK(cudaMemcpy(dl, hlo, sizeof hlo, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dh, hhi, sizeof hhi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice));
    funnel<<<N / 64, 64>>>(dl, dh, ds, dout);
    CHECK_KERNEL();
    static unsigned r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"shf.l.wrap", "shf.l.clamp", "shf.r.wrap", "shf.r.clamp", "rotr64.lo", "rotr64.hi"};
    for (int i = 0; i < N; ++i) {
        // Reference: a 64-bit window hi:lo moved one bit at a time (a funnel shift is a window on it).
        unsigned long long w = ((unsigned long long)hhi[i] << 32) | hlo[i];
        unsigned s = hs[i];
        unsigned sw = s & 31, sc = s < 32 ? s : 32;
        unsigned long long left = w, leftc = w, right = w, rightc = w;
        for (unsigned k = 0; k < sw; ++k) { left <<= 1; right >>= 1; }
        for (unsigned k = 0; k < sc; ++k) { leftc <<= 1; rightc >>= 1; }
        unsigned long long rot = w;
        for (unsigned k = 0; k < (s & 63); ++k) rot = (rot >> 1) | ((rot & 1) << 63);
        unsigned e[K];
        e[0] = (unsigned)(left >> 32);
        e[1] = (unsigned)(leftc >> 32);
        e[2] = (unsigned)right;
        e[3] = (unsigned)rightc;
        e[4] = (unsigned)rot;
        e[5] = (unsigned)(rot >> 32);
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[i * K + k]);
    }
    return t.finish();
}
