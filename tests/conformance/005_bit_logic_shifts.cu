// 005_bit_logic_shifts: and/or/xor/not on 32 and 64 bits, logical and arithmetic shifts, rotates, and
// PTX shifts by amounts >= the register width (shl/shr clamp the amount: inline asm, defined behaviour).
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 20;

__device__ unsigned shl32(unsigned x, unsigned n) {
    unsigned r;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
    return r;
}
__device__ unsigned shr_u32(unsigned x, unsigned n) {
    unsigned r;
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
    return r;
}
__device__ int shr_s32(int x, unsigned n) {
    int r;
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
    return r;
}
__device__ unsigned long long shl64(unsigned long long x, unsigned n) {
    unsigned long long r;
    asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(n));
    return r;
}
__device__ long long shr_s64(long long x, unsigned n) {
    long long r;
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(n));
    return r;
}

__global__ void bits(const unsigned* a, const unsigned* b, const unsigned long long* la, const unsigned* amt,
                     unsigned long long* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    unsigned x = a[i], y = b[i], n = amt[i];
    unsigned long long lx = la[i];
    unsigned s = n & 31, s64 = n & 63;
    unsigned long long* out = o + (long long)i * K;
    out[0] = x & y;
    out[1] = x | y;
    out[2] = x ^ y;
    out[3] = ~x;
    out[4] = (x & ~y) | (~x & y);
    out[5] = lx & ~(unsigned long long)y;
    out[6] = lx ^ ((unsigned long long)x << 32 | y);
    out[7] = x << s;
    out[8] = x >> s;
    out[9] = (unsigned)((int)x >> s);  // arithmetic shift of a signed value
    out[10] = s ? (x << s) | (x >> (32 - s)) : x;  // rotate left
    out[11] = lx << s64;
    out[12] = lx >> s64;
    out[13] = (unsigned long long)((long long)lx >> s64);
    out[14] = shl32(x, n);   // n may be >= 32
    out[15] = shr_u32(x, n);
    out[16] = (unsigned)shr_s32((int)x, n);
    out[17] = shl64(lx, n);  // n may be >= 64
    out[18] = (unsigned long long)shr_s64((long long)lx, n);
    out[19] = !x + !!y + (x && y) * 2 + (x || lx) * 4;  // logical operators
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(5);
    static unsigned ha[N], hb[N], hn[N];
    static unsigned long long hla[N];
    const unsigned amounts[] = {0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 255, 256, 0xffffffffu};
    for (int i = 0; i < N; ++i) {
        ha[i] = rng.next_u32();
        hb[i] = rng.next_u32();
        hla[i] = rng.next_u64();
        hn[i] = i < 13 * 8 ? amounts[i % 13] : rng.next_u32() % 80;
        if (i % 16 == 3) ha[i] |= 0x80000000u;  // make sure negative values meet arithmetic shifts
        if (i % 16 == 5) hla[i] |= 0x8000000000000000ULL;
        if (i % 32 == 7) ha[i] = 0;
        if (i % 32 == 9) hb[i] = 0;
        if (i % 64 == 11) { ha[i] = 0; hla[i] = 0; }
    }
    unsigned *da, *db, *dn;
    unsigned long long *dla, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dn, sizeof hn));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dout, sizeof(unsigned long long) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dn, hn, sizeof hn, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    bits<<<N / 128, 128>>>(da, db, dla, dn, dout);
    CHECK_KERNEL();
    static unsigned long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"and", "or", "xor", "not", "xor2", "andn64", "xor64", "shl", "shr.u", "shr.s", "rotl",
                            "shl64", "shr.u64", "shr.s64", "shl>=32", "shr.u>=32", "shr.s>=32", "shl64>=64",
                            "shr.s64>=64", "logical"};
    for (int i = 0; i < N; ++i) {
        unsigned x = ha[i], y = hb[i], n = hn[i];
        unsigned long long lx = hla[i];
        // Reference: shifts done one bit at a time, so no host shift is ever >= the width.
        auto shl_bits = [](unsigned long long v, unsigned cnt, int w) {
            unsigned long long mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
            for (unsigned k = 0; k < cnt && k < 200; ++k) v = (v << 1) & mask;
            return v;
        };
        auto shr_bits = [](unsigned long long v, unsigned cnt, int w, bool arith) {
            unsigned long long sign = (v >> (w - 1)) & 1;
            for (unsigned k = 0; k < cnt && k < 200; ++k) v = (v >> 1) | ((arith && sign) ? 1ULL << (w - 1) : 0);
            return v;
        };
        unsigned s = n & 31, s64 = n & 63;
        unsigned long long e[K];
        e[0] = x & y;
        e[1] = x | y;
        e[2] = x ^ y;
        e[3] = (unsigned)~x;
        e[4] = x ^ y;
        e[5] = lx & ~(unsigned long long)y;
        e[6] = lx ^ (((unsigned long long)x << 32) | y);
        e[7] = shl_bits(x, s, 32);
        e[8] = shr_bits(x, s, 32, false);
        e[9] = shr_bits(x, s, 32, true);
        e[10] = s ? (shl_bits(x, s, 32) | shr_bits(x, 32 - s, 32, false)) : x;
        e[11] = shl_bits(lx, s64, 64);
        e[12] = shr_bits(lx, s64, 64, false);
        e[13] = shr_bits(lx, s64, 64, true);
        e[14] = shl_bits(x, n, 32);
        e[15] = shr_bits(x, n, 32, false);
        e[16] = shr_bits(x, n, 32, true);
        e[17] = shl_bits(lx, n, 64);
        e[18] = shr_bits(lx, n, 64, true);
        e[19] = (unsigned long long)((x == 0) + (y != 0) + (x != 0 && y != 0) * 2 + (x != 0 || lx != 0) * 4);
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[(long long)i * K + k]);
    }
    return t.finish();
}
