// 001_int_arith: 32- and 64-bit integer add/sub, mul.lo, mul.hi (__mulhi, __umulhi, __mul64hi,
// __umul64hi), mul.wide (32x32->64 signed and unsigned) and mad, with signed and unsigned operands.
#include "conformance.h"

constexpr int N = 512;
constexpr int K32 = 9;  // results per thread, 32-bit
constexpr int K64 = 9;  // results per thread, 64-bit

__global__ void arith(const int* a, const int* b, const int* c, const long long* la, const long long* lb,
                      unsigned* o32, unsigned long long* o64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i], z = c[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y, uz = (unsigned)z;
    long long lx = la[i], ly = lb[i];
    unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;

    o32[0 * N + i] = ux + uy;
    o32[1 * N + i] = ux - uy;
    o32[2 * N + i] = ux * uy;                       // mul.lo
    o32[3 * N + i] = (unsigned)__mulhi(x, y);       // mul.hi.s32
    o32[4 * N + i] = __umulhi(ux, uy);              // mul.hi.u32
    o32[5 * N + i] = ux * uy + uz;                  // mad.lo
    o32[6 * N + i] = (unsigned)(x / 2 + y / 2);     // small signed arithmetic, no overflow
    o32[7 * N + i] = uz - ux * 3u;
    o32[8 * N + i] = (unsigned)(-(long long)x);     // negation of the sign-extended value

    o64[0 * N + i] = (unsigned long long)((long long)x * (long long)y);  // mul.wide.s32
    o64[1 * N + i] = (unsigned long long)ux * (unsigned long long)uy;    // mul.wide.u32
    o64[2 * N + i] = ulx + uly;
    o64[3 * N + i] = ulx - uly;
    o64[4 * N + i] = ulx * uly;                                          // mul.lo.u64
    o64[5 * N + i] = (unsigned long long)__mul64hi(lx, ly);              // mul.hi.s64
    o64[6 * N + i] = __umul64hi(ulx, uly);                               // mul.hi.u64
    o64[7 * N + i] = ulx * uly + ulx;                                    // mad.lo.u64
    o64[8 * N + i] = (unsigned long long)((long long)x * z) + ulx;      // mad.wide.s32 shape
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(1);
    const int edge[] = {0, 1, -1, 2, -2, 0x7fffffff, (int)0x80000000, 0x12345678, -0x12345678, 65535, 65536,
                        -65536, 46341, -46341, 0x55555555, (int)0xaaaaaaaa};
    const int nedge = sizeof(edge) / sizeof(edge[0]);
    int ha[N], hb[N], hc[N];
    long long hla[N], hlb[N];
    for (int i = 0; i < N; ++i) {
        ha[i] = i < nedge * nedge ? edge[i / nedge] : (int)rng.next_u32();
        hb[i] = i < nedge * nedge ? edge[i % nedge] : (int)rng.next_u32();
        hc[i] = (int)rng.next_u32();
        hla[i] = (i % 4 == 0) ? (long long)ha[i] : (long long)rng.next_u64();
        hlb[i] = (i % 8 == 0) ? -(long long)(i + 1) : (long long)rng.next_u64();
    }
    hla[1] = 0x7fffffffffffffffLL;
    hlb[1] = 0x7fffffffffffffffLL;
    hla[2] = (long long)0x8000000000000000ULL;
    hlb[2] = -1;
    hla[3] = (long long)0x8000000000000000ULL;
    hlb[3] = (long long)0x8000000000000000ULL;

    int *da, *db, *dc;
    long long *dla, *dlb;
    unsigned* d32;
    unsigned long long* d64;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dc, sizeof hc));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dlb, sizeof hlb));
    CHECK(cudaMalloc(&d32, sizeof(unsigned) * K32 * N));
    CHECK(cudaMalloc(&d64, sizeof(unsigned long long) * K64 * N));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlb, hlb, sizeof hlb, cudaMemcpyHostToDevice));
    arith<<<N / 64, 64>>>(da, db, dc, dla, dlb, d32, d64);
    CHECK_KERNEL();
    static unsigned r32[K32 * N];
    static unsigned long long r64[K64 * N];
    CHECK(cudaMemcpy(r32, d32, sizeof r32, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r64, d64, sizeof r64, cudaMemcpyDeviceToHost));

    const char* n32[K32] = {"add", "sub", "mul.lo", "mulhi.s32", "mulhi.u32", "mad.lo", "halves", "mad-neg", "neg"};
    const char* n64[K64] = {"mul.wide.s32", "mul.wide.u32", "add64", "sub64", "mul.lo64", "mulhi.s64", "mulhi.u64",
                            "mad.lo64", "mad.wide"};
    for (int i = 0; i < N; ++i) {
        long long x = ha[i], y = hb[i], z = hc[i];
        unsigned long long X = (unsigned long long)(long long)ha[i] & 0xffffffffULL;
        unsigned long long Y = (unsigned long long)(long long)hb[i] & 0xffffffffULL;
        unsigned long long Z = (unsigned long long)(long long)hc[i] & 0xffffffffULL;
        unsigned e32[K32];
        e32[0] = (unsigned)((X + Y) & 0xffffffffULL);
        e32[1] = (unsigned)((X - Y) & 0xffffffffULL);
        e32[2] = (unsigned)((X * Y) & 0xffffffffULL);
        long long sp = x * y;  // exact in 64 bits
        e32[3] = (unsigned)(((unsigned long long)(sp >> 32)) & 0xffffffffULL);
        e32[4] = (unsigned)((X * Y) >> 32);
        e32[5] = (unsigned)((X * Y + Z) & 0xffffffffULL);
        e32[6] = (unsigned)(x / 2 + y / 2);
        e32[7] = (unsigned)((Z - 3 * X) & 0xffffffffULL);
        e32[8] = (unsigned)((unsigned long long)(-x) & 0xffffffffULL);
        for (int k = 0; k < K32; ++k) t.eq(n32[k], i, e32[k], r32[k * N + i]);

        __int128 slx = hla[i], sly = hlb[i];
        unsigned __int128 ulx = (unsigned long long)hla[i], uly = (unsigned long long)hlb[i];
        unsigned long long e64[K64];
        e64[0] = (unsigned long long)(x * y);
        e64[1] = X * Y;
        e64[2] = (unsigned long long)(ulx + uly);
        e64[3] = (unsigned long long)(ulx - uly);
        e64[4] = (unsigned long long)(ulx * uly);
        e64[5] = (unsigned long long)(long long)((slx * sly) >> 64);
        e64[6] = (unsigned long long)((ulx * uly) >> 64);
        e64[7] = (unsigned long long)(ulx * uly + ulx);
        e64[8] = (unsigned long long)(x * z) + (unsigned long long)hla[i];
        for (int k = 0; k < K64; ++k) t.eq(n64[k], i, e64[k], r64[k * N + i]);
    }
    return t.finish();
}
