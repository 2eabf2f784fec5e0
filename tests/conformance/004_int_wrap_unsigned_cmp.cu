// 004_int_wrap_unsigned_cmp: integer overflow wraparound (unsigned 8/16/32/64-bit, narrowing
// conversions) and signed vs unsigned comparisons, including mixed signed/unsigned operands.
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 8;

__global__ void wrap(const int* a, const int* b, const long long* la, const long long* lb, unsigned* cmpbits,
                     long long* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    long long lx = la[i], ly = lb[i];
    unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;

    unsigned bits = 0;
    bits |= (x < y) << 0;
    bits |= (ux < uy) << 1;
    bits |= (x <= y) << 2;
    bits |= (ux >= uy) << 3;
    bits |= (lx < ly) << 4;
    bits |= (ulx < uly) << 5;
    bits |= ((short)x < (short)y) << 6;
    bits |= ((unsigned short)x < (unsigned short)y) << 7;
    bits |= ((unsigned char)x > (unsigned char)y) << 8;
    bits |= ((signed char)x > (signed char)y) << 9;
    bits |= (x < 0) << 10;
    bits |= (ux > 0x7fffffffu) << 11;
    bits |= ((unsigned)x < (unsigned)y) << 12;  // same as bit 1, spelled differently
    bits |= (lx > (long long)x) << 13;
    bits |= (ulx > (unsigned long long)ux) << 14;
    bits |= (x != y) << 15;
    cmpbits[i] = bits;

    long long* out = o + (long long)i * K;
    out[0] = (long long)(ux + uy);                        // 32-bit wrap
    out[1] = (long long)(ulx + uly);                      // 64-bit wrap
    out[2] = (unsigned char)(ux + 200u);                  // 8-bit wrap
    out[3] = (unsigned short)(ux * 3u);                   // 16-bit wrap
    out[4] = (signed char)(ux & 0xff);                    // narrowing to signed 8 bits
    out[5] = (short)(ux >> 4);                            // narrowing to signed 16 bits
    unsigned char c = (unsigned char)x;                   // an 8-bit counter that wraps
    int steps = 0;
    for (unsigned char k = c; k != (unsigned char)(c - 3); ++k) ++steps;
    out[6] = steps;
    out[7] = (long long)(ux * 0x9e3779b9u ^ (ux >> 16));  // hash-style multiply wrap
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(4);
    const int edge[] = {0, 1, -1, 127, 128, -128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x7fffffff, (int)0x80000000,
                        (int)0xfffffffe, 200, -200};
    const int nedge = sizeof(edge) / sizeof(edge[0]);
    static int ha[N], hb[N];
    static long long hla[N], hlb[N];
    for (int i = 0; i < N; ++i) {
        ha[i] = i < nedge * nedge ? edge[i / nedge] : (int)rng.next_u32();
        hb[i] = i < nedge * nedge ? edge[i % nedge] : (int)rng.next_u32();
        hla[i] = i % 2 ? (long long)ha[i] : (long long)rng.next_u64();
        hlb[i] = i % 4 == 0 ? -(long long)hla[i] : (long long)rng.next_u64();
    }
    int *da, *db;
    unsigned* dbits;
    long long *dla, *dlb, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dlb, sizeof hlb));
    CHECK(cudaMalloc(&dbits, sizeof(unsigned) * N));
    CHECK(cudaMalloc(&dout, sizeof(long long) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlb, hlb, sizeof hlb, cudaMemcpyHostToDevice));
    wrap<<<N / 256, 256>>>(da, db, dla, dlb, dbits, dout);
    CHECK_KERNEL();
    static unsigned rbits[N];
    static long long r[N * K];
    CHECK(cudaMemcpy(rbits, dbits, sizeof rbits, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"wrap32", "wrap64", "wrap8", "wrap16", "narrow8", "narrow16", "u8-loop", "hash"};
    for (int i = 0; i < N; ++i) {
        // Reference: values as mathematical integers in 64-bit, unsigned views built by masking.
        long long x = ha[i], y = hb[i];
        unsigned long long ux = (unsigned long long)x & 0xffffffffULL, uy = (unsigned long long)y & 0xffffffffULL;
        long long lx = hla[i], ly = hlb[i];
        unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;
        auto sext = [](unsigned long long v, int w) -> long long {  // sign-extend the low w bits
            unsigned long long m = 1ULL << (w - 1);
            v &= (1ULL << w) - 1;
            return (long long)(v ^ m) - (long long)m;
        };
        unsigned e = 0;
        e |= (unsigned)(x < y) << 0;
        e |= (unsigned)(ux < uy) << 1;
        e |= (unsigned)(x <= y) << 2;
        e |= (unsigned)(ux >= uy) << 3;
        e |= (unsigned)(lx < ly) << 4;
        e |= (unsigned)(ulx < uly) << 5;
        e |= (unsigned)(sext(ux, 16) < sext(uy, 16)) << 6;
        e |= (unsigned)((ux & 0xffff) < (uy & 0xffff)) << 7;
        e |= (unsigned)((ux & 0xff) > (uy & 0xff)) << 8;
        e |= (unsigned)(sext(ux, 8) > sext(uy, 8)) << 9;
        e |= (unsigned)(x < 0) << 10;
        e |= (unsigned)(ux >= 0x80000000ULL) << 11;
        e |= (unsigned)(ux < uy) << 12;
        e |= (unsigned)(lx > x) << 13;
        e |= (unsigned)(ulx > ux) << 14;
        e |= (unsigned)(x != y) << 15;
        t.eq("cmpbits", i, e, rbits[i]);

        long long ex[K];
        ex[0] = (long long)((ux + uy) & 0xffffffffULL);
        ex[1] = (long long)(ulx + uly);
        ex[2] = (long long)((ux + 200) & 0xff);
        ex[3] = (long long)((ux * 3) & 0xffff);
        ex[4] = sext(ux, 8);
        ex[5] = sext(ux >> 4, 16);
        ex[6] = (long long)(((ux & 0xff) + 256 - 3 - (ux & 0xff)) % 256);  // increments from c to c-3 mod 256
        ex[7] = (long long)(((ux * 0x9e3779b9ULL) & 0xffffffffULL) ^ (ux >> 16));
        for (int k = 0; k < K; ++k) t.eq(names[k], i, ex[k], r[(long long)i * K + k]);
    }
    return t.finish();
}
