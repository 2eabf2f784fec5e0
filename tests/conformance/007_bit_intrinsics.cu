// 007_bit_intrinsics: __brev/__brevll, __popc/__popcll, __clz/__clzll, __ffs/__ffsll, __byte_perm
// (selectors 0..7) and __fns (find n-th set bit, forward and backward), against bit-loop references.
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 11;

__global__ void bitops(const unsigned* a, const unsigned* b, const unsigned long long* la, const unsigned* sel,
                       const int* off, unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    unsigned x = a[i], y = b[i], s = sel[i];
    unsigned long long lx = la[i];
    unsigned* out = o + i * K;
    unsigned long long rb = __brevll(lx);
    out[0] = __brev(x);
    out[1] = (unsigned)rb;
    out[2] = (unsigned)(rb >> 32);
    out[3] = __popc(x);
    out[4] = __popcll(lx);
    out[5] = __clz((int)x);
    out[6] = __clzll((long long)lx);
    out[7] = __ffs((int)x);
    out[8] = __ffsll((long long)lx);
    out[9] = __byte_perm(x, y, s);
    out[10] = __fns(x, (unsigned)(i % 32), off[i]);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(7);
    static unsigned ha[N], hb[N], hs[N];
    static unsigned long long hla[N];
    static int hoff[N];
    for (int i = 0; i < N; ++i) {
        ha[i] = rng.next_u32();
        if (i % 4 == 1) ha[i] >>= rng.next_u32() % 32;           // vary the leading zeros
        if (i % 4 == 2) ha[i] <<= rng.next_u32() % 32;           // vary the trailing zeros
        if (i % 8 == 3) ha[i] &= rng.next_u32() & rng.next_u32();  // sparse masks for __fns
        hb[i] = rng.next_u32();
        hla[i] = rng.next_u64();
        if (i % 4 == 1) hla[i] >>= rng.next_u32() % 64;
        if (i % 4 == 2) hla[i] <<= rng.next_u32() % 64;
        unsigned sel = 0;
        for (int n = 0; n < 4; ++n) sel |= (rng.next_u32() % 8) << (4 * n);  // selector nibbles 0..7 only
        hs[i] = sel;
        hoff[i] = rng.next_int(-34, 34);
    }
    ha[0] = 0; hla[0] = 0;
    ha[1] = 0xffffffffu; hla[1] = ~0ULL;
    ha[2] = 1; hla[2] = 1;
    ha[3] = 0x80000000u; hla[3] = 0x8000000000000000ULL;
    ha[4] = 0xaaaaaaaau; hoff[4] = 1;   // base 4: finds bit 5
    ha[5] = 0xaaaaaaaau; hoff[5] = -1;  // base 5: finds bit 5
    ha[6] = 0xaaaaaaaau; hoff[6] = 0;   // base 6: bit 6 clear: not found
    ha[7] = 0xaaaaaaaau; hoff[7] = 0;   // base 7: bit 7 set: 7
    hs[8] = 0x3210; hs[9] = 0x7654; hs[10] = 0x0123; hs[11] = 0x4444;

    unsigned *da, *db, *ds, *dout;
    unsigned long long* dla;
    int* doff;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&ds, sizeof hs));
    CHECK(cudaMalloc(&dla, sizeof hla));
    CHECK(cudaMalloc(&doff, sizeof hoff));
    CHECK(cudaMalloc(&dout, sizeof(unsigned) * N * K));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dla, hla, sizeof hla, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(doff, hoff, sizeof hoff, cudaMemcpyHostToDevice));
    bitops<<<N / 128, 128>>>(da, db, dla, ds, doff, dout);
    CHECK_KERNEL();
    static unsigned r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));

    const char* names[K] = {"brev", "brevll.lo", "brevll.hi", "popc", "popcll", "clz", "clzll", "ffs", "ffsll",
                            "byte_perm", "fns"};
    for (int i = 0; i < N; ++i) {
        unsigned x = ha[i], y = hb[i], s = hs[i];
        unsigned long long lx = hla[i];
        auto bit = [](unsigned long long v, int k) { return (unsigned)((v >> k) & 1); };
        unsigned long long rbx = 0, rbl = 0;
        unsigned pc = 0, pcl = 0, clz = 32, clzl = 64, ffs = 0, ffsl = 0;
        for (int k = 0; k < 32; ++k) {
            rbx |= (unsigned long long)bit(x, k) << (31 - k);
            pc += bit(x, k);
        }
        for (int k = 0; k < 64; ++k) {
            rbl |= (unsigned long long)bit(lx, k) << (63 - k);
            pcl += bit(lx, k);
        }
        for (int k = 31; k >= 0; --k) if (bit(x, k)) { clz = 31 - k; break; }
        for (int k = 63; k >= 0; --k) if (bit(lx, k)) { clzl = 63 - k; break; }
        for (int k = 0; k < 32; ++k) if (bit(x, k)) { ffs = k + 1; break; }
        for (int k = 0; k < 64; ++k) if (bit(lx, k)) { ffsl = k + 1; break; }
        // byte_perm: the 8 input bytes are x (bytes 0-3) then y (bytes 4-7).
        unsigned char in[8];
        for (int k = 0; k < 4; ++k) { in[k] = (unsigned char)(x >> (8 * k)); in[4 + k] = (unsigned char)(y >> (8 * k)); }
        unsigned perm = 0;
        for (int k = 0; k < 4; ++k) perm |= (unsigned)in[(s >> (4 * k)) & 7] << (8 * k);
        // fns: walk from base in the direction of the offset's sign, counting set bits.
        int base = i % 32, offv = hoff[i];
        unsigned fns = 0xffffffffu;
        if (offv == 0) {
            if (bit(x, base)) fns = (unsigned)base;
        } else {
            int need = offv > 0 ? offv : -offv, step = offv > 0 ? 1 : -1;
            for (int p = base; p >= 0 && p < 32; p += step)
                if (bit(x, p) && --need == 0) { fns = (unsigned)p; break; }
        }
        unsigned e[K] = {(unsigned)rbx, (unsigned)rbl, (unsigned)(rbl >> 32), pc, pcl, clz, clzl, ffs, ffsl, perm, fns};
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[i * K + k]);
    }
    return t.finish();
}
