// 008_bitfield_bfe_bfi: PTX bfe.u32/.s32/.u64 and bfi.b32/.b64 through inline asm (including
// length 0, fields past the msb, positions >= the width and, for 32 bits, operands >= 256 that the ISA
// reduces to 8 bits), and C++ bit-field structs.
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 9;

struct Packed {  // C++ bit-fields: nvcc extracts/inserts them with bfe/bfi-like sequences
    unsigned a : 3;
    unsigned b : 7;
    int c : 5;
    unsigned d : 17;
};

__device__ unsigned bfe_u32(unsigned a, unsigned pos, unsigned len) {
    unsigned d;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(pos), "r"(len));
    return d;
}
__device__ int bfe_s32(int a, unsigned pos, unsigned len) {
    int d;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(pos), "r"(len));
    return d;
}
__device__ unsigned long long bfe_u64(unsigned long long a, unsigned pos, unsigned len) {
    unsigned long long d;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "r"(pos), "r"(len));
    return d;
}
__device__ unsigned bfi_b32(unsigned a, unsigned b, unsigned pos, unsigned len) {
    unsigned f;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(f) : "r"(a), "r"(b), "r"(pos), "r"(len));
    return f;
}
__device__ unsigned long long bfi_b64(unsigned long long a, unsigned long long b, unsigned pos, unsigned len) {
    unsigned long long f;
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(f) : "l"(a), "l"(b), "r"(pos), "r"(len));
    return f;
}

__global__ void bitfields(const unsigned* a, const unsigned* b, const unsigned long long* la, const unsigned* pos,
                          const unsigned* len, unsigned long long* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    unsigned x = a[i], y = b[i], p = pos[i], l = len[i];
    unsigned long long lx = la[i];
    unsigned long long* out = o + (long long)i * K;
    out[0] = bfe_u32(x, p, l);
    out[1] = (unsigned)bfe_s32((int)x, p, l);
    // 64-bit forms: positions and lengths below 256 only. The PTX ISA reduces them to 8 bits, but on
    // an H100 (sm_90) bfe.u64/bfi.b64 with a position >= 256 behave as if the position were out of range.
    out[2] = bfe_u64(lx, p & 0xff, l & 0xff);
    out[3] = bfi_b32(x, y, p, l);
    out[4] = bfi_b64(lx, ~lx, p & 0xff, l & 0xff);
    // C++ bit-fields: write fields from x, read them back, modify one.
    Packed pk = {};
    pk.a = x;
    pk.b = x >> 3;
    pk.c = (int)(x >> 10);
    pk.d = y;
    pk.c = pk.c + 3;  // wraps within 5 signed bits (implementation-defined conversion, same on host)
    out[5] = pk.a;
    out[6] = pk.b;
    out[7] = (unsigned long long)(long long)pk.c;
    out[8] = pk.d;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(8);
    static unsigned ha[N], hb[N], hp[N], hl[N];
    static unsigned long long hla[N];
    for (int i = 0; i < N; ++i) {
        ha[i] = rng.next_u32();
        hb[i] = rng.next_u32();
        hla[i] = rng.next_u64();
        if (i % 4 == 0) {  // ordinary fields
            hp[i] = rng.next_u32() % 32;
            hl[i] = rng.next_u32() % (33 - hp[i]);
        } else if (i % 4 == 1) {  // fields running past bit 31 (and, for 64-bit ops, short ones)
            hp[i] = rng.next_u32() % 64;
            hl[i] = rng.next_u32() % 70;
        } else if (i % 4 == 2) {  // edge cases: len 0, pos >= width, values above 255 (only low 8 bits count)
            const unsigned ps[] = {0, 31, 32, 63, 64, 200, 255, 256 + 3, 0};
            const unsigned ls[] = {0, 1, 32, 64, 255, 256 + 4, 512, 1, 33};
            hp[i] = ps[(i / 4) % 9];
            hl[i] = ls[(i / 36) % 9];
        } else {
            hp[i] = rng.next_u32() % 300;
            hl[i] = rng.next_u32() % 300;
        }
    }
    unsigned *da, *db, *dp, *dl;
    unsigned long long *dla, *dout;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dp, sizeof hp));
    CHECK(cudaMalloc(&dl, sizeof hl));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&dout, sizeof(unsigned long long) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dp, hp, sizeof hp, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl, hl, sizeof hl, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    bitfields<<<N / 128, 128>>>(da, db, dla, dp, dl, dout);
    CHECK_KERNEL();
    static unsigned long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"bfe.u32", "bfe.s32", "bfe.u64", "bfi.b32", "bfi.b64", "field.a", "field.b", "field.c",
                            "field.d"};
    auto bit = [](unsigned long long v, unsigned k) { return (v >> k) & 1ULL; };
    // Reference: the PTX ISA definitions of bfe and bfi, bit by bit.
    auto bfe = [&](unsigned long long a, unsigned b, unsigned c, int msb, bool is_signed) {
        unsigned p = b & 0xff, l = c & 0xff;
        unsigned long long sbit = 0;
        if (is_signed && l != 0) sbit = bit(a, p + l - 1 < (unsigned)msb ? p + l - 1 : (unsigned)msb);
        unsigned long long d = 0;
        for (unsigned k = 0; k <= (unsigned)msb; ++k) {
            unsigned long long v = (k < l && p + k <= (unsigned)msb) ? bit(a, p + k) : sbit;
            d |= v << k;
        }
        return d;
    };
    auto bfi = [&](unsigned long long a, unsigned long long b, unsigned c, unsigned dd, int msb) {
        unsigned p = c & 0xff, l = dd & 0xff;
        unsigned long long f = b;
        for (unsigned k = 0; k < l && p + k <= (unsigned)msb; ++k) {
            f &= ~(1ULL << (p + k));
            f |= bit(a, k) << (p + k);
        }
        return f;
    };
    for (int i = 0; i < N; ++i) {
        unsigned x = ha[i], y = hb[i];
        unsigned long long lx = hla[i];
        unsigned long long e[K];
        e[0] = bfe(x, hp[i], hl[i], 31, false);
        e[1] = bfe(x, hp[i], hl[i], 31, true);
        e[2] = bfe(lx, hp[i] & 0xff, hl[i] & 0xff, 63, false);
        e[3] = bfi(x, y, hp[i], hl[i], 31);
        e[4] = bfi(lx, ~lx, hp[i] & 0xff, hl[i] & 0xff, 63);
        e[5] = x & 7;
        e[6] = (x >> 3) & 0x7f;
        long long c5 = (long long)((x >> 10) & 31);
        if (c5 >= 16) c5 -= 32;       // the 5-bit signed field as stored
        c5 += 3;
        c5 = ((c5 + 16) & 31) - 16;   // wraps back into [-16, 15]
        e[7] = (unsigned long long)c5;
        e[8] = y & 0x1ffff;
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[(long long)i * K + k]);
    }
    return t.finish();
}
