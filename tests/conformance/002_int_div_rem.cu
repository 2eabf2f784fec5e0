// 002_int_div_rem: signed and unsigned 32/64-bit division and remainder with negative operands
// (C++ truncation toward zero), including division by constants and by powers of two.
#include "conformance.h"

constexpr int N = 512;
constexpr int K32 = 12;
constexpr int K64 = 10;

__global__ void divrem(const int* a, const int* b, const long long* la, const long long* lb, int* o32,
                       long long* o64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    o32[0 * N + i] = x / y;  // the host guarantees y != 0 and not (INT_MIN / -1)
    o32[1 * N + i] = x % y;
    o32[2 * N + i] = (int)(ux / uy);
    o32[3 * N + i] = (int)(ux % uy);
    o32[4 * N + i] = x / 7;
    o32[5 * N + i] = x % 7;
    o32[6 * N + i] = x / -3;
    o32[7 * N + i] = x / 16;  // power of two: needs the rounding fix-up for negative x
    o32[8 * N + i] = x % 16;
    o32[9 * N + i] = (int)(ux / 10u);
    o32[10 * N + i] = (int)(ux % 1000u);
    o32[11 * N + i] = (x >> 3);  // arithmetic shift rounds toward -infinity

    long long lx = la[i], ly = lb[i];
    unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;
    o64[0 * N + i] = lx / ly;
    o64[1 * N + i] = lx % ly;
    o64[2 * N + i] = (long long)(ulx / uly);
    o64[3 * N + i] = (long long)(ulx % uly);
    o64[4 * N + i] = lx / 1000;
    o64[5 * N + i] = lx % 1000;
    o64[6 * N + i] = (long long)(ulx / 1000003ULL);
    o64[7 * N + i] = (long long)(ulx % 1000003ULL);
    o64[8 * N + i] = lx / -64;
    o64[9 * N + i] = (long long)x / (long long)y;  // 64-bit division of 32-bit values (INT_MIN/-1 is fine here)
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(2);
    static int ha[N], hb[N];
    static long long hla[N], hlb[N];
    const int edge[] = {0, 1, -1, 7, -7, 16, -16, 17, -17, 0x7fffffff, (int)0x80000000, 1000, -1000, 3, -3, 123456789};
    const int nedge = sizeof(edge) / sizeof(edge[0]);
    for (int i = 0; i < N; ++i) {
        if (i < nedge * nedge) {
            ha[i] = edge[i / nedge];
            hb[i] = edge[i % nedge];
        } else {
            ha[i] = (int)rng.next_u32();
            int mode = i % 3;
            hb[i] = mode == 0 ? rng.next_int(-20, 20) : mode == 1 ? rng.next_int(-100000, 100000) : (int)rng.next_u32();
        }
        if (hb[i] == 0) hb[i] = 5;
        if (ha[i] == (int)0x80000000 && hb[i] == -1) hb[i] = 2;
        hla[i] = (i % 5 == 0) ? (long long)ha[i] : (long long)rng.next_u64();
        int mode = i % 4;
        hlb[i] = mode == 0 ? (long long)rng.next_int(-50, 50)
                 : mode == 1 ? (long long)hb[i]
                 : mode == 2 ? (long long)rng.next_u64() >> (rng.next_u32() % 60)
                             : (long long)rng.next_u64();
        if (hlb[i] == 0) hlb[i] = -9;
        if (hla[i] == (long long)0x8000000000000000ULL && hlb[i] == -1) hlb[i] = 3;
    }

    int *da, *db, *d32;
    long long *dla, *dlb, *d64;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dlb, sizeof hlb));
    CHECK(cudaMalloc(&d32, sizeof(int) * K32 * N));
    CHECK(cudaMalloc(&d64, sizeof(long long) * K64 * N));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlb, hlb, sizeof hlb, cudaMemcpyHostToDevice));
    divrem<<<N / 128, 128>>>(da, db, dla, dlb, d32, d64);
    CHECK_KERNEL();
    static int r32[K32 * N];
    static long long r64[K64 * N];
    CHECK(cudaMemcpy(r32, d32, sizeof r32, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r64, d64, sizeof r64, cudaMemcpyDeviceToHost));

    const char* n32[K32] = {"div.s32", "rem.s32", "div.u32", "rem.u32", "div7", "rem7", "div-3", "div16", "rem16",
                            "udiv10", "urem1000", "shr3"};
    const char* n64[K64] = {"div.s64", "rem.s64", "div.u64", "rem.u64", "div1000", "rem1000", "udiv1000003",
                            "urem1000003", "div-64", "div.s64(32)"};
    for (int i = 0; i < N; ++i) {
        // Reference: long division on magnitudes, then C++ sign rules (quotient truncates toward zero,
        // remainder has the dividend's sign).
        auto sdiv = [](long long p, long long q, bool rem) -> long long {
            unsigned long long mp = p < 0 ? 0ULL - (unsigned long long)p : (unsigned long long)p;
            unsigned long long mq = q < 0 ? 0ULL - (unsigned long long)q : (unsigned long long)q;
            unsigned long long quo = 0, r = 0;
            for (int bit = 63; bit >= 0; --bit) {
                r = (r << 1) | ((mp >> bit) & 1);
                if (r >= mq) { r -= mq; quo |= 1ULL << bit; }
            }
            if (rem) return p < 0 ? -(long long)r : (long long)r;
            return ((p < 0) != (q < 0)) ? (long long)(0ULL - quo) : (long long)quo;
        };
        long long x = ha[i], y = hb[i];
        unsigned ux = (unsigned)ha[i], uy = (unsigned)hb[i];
        int e32[K32];
        e32[0] = (int)sdiv(x, y, false);
        e32[1] = (int)sdiv(x, y, true);
        e32[2] = (int)(ux / uy);
        e32[3] = (int)(ux % uy);
        e32[4] = (int)sdiv(x, 7, false);
        e32[5] = (int)sdiv(x, 7, true);
        e32[6] = (int)sdiv(x, -3, false);
        e32[7] = (int)sdiv(x, 16, false);
        e32[8] = (int)sdiv(x, 16, true);
        e32[9] = (int)(ux / 10u);
        e32[10] = (int)(ux % 1000u);
        e32[11] = (int)(x >= 0 ? x / 8 : -((-x + 7) / 8));  // floor(x / 8)
        for (int k = 0; k < K32; ++k) t.eq(n32[k], i, e32[k], r32[k * N + i]);

        long long lx = hla[i], ly = hlb[i];
        unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly;
        long long e64[K64];
        e64[0] = sdiv(lx, ly, false);
        e64[1] = sdiv(lx, ly, true);
        e64[2] = (long long)(ulx / uly);
        e64[3] = (long long)(ulx % uly);
        e64[4] = sdiv(lx, 1000, false);
        e64[5] = sdiv(lx, 1000, true);
        e64[6] = (long long)(ulx / 1000003ULL);
        e64[7] = (long long)(ulx % 1000003ULL);
        e64[8] = sdiv(lx, -64, false);
        e64[9] = sdiv(x, y, false);
        for (int k = 0; k < K64; ++k) t.eq(n64[k], i, e64[k], r64[k * N + i]);
    }
    return t.finish();
}
