// 031_atomic_bitwise_exch: atomicAnd/atomicOr/atomicXor on 32- and 64-bit words (a shared bitmap,
// clearing bits, xor-accumulation) and atomicExch on int, unsigned long long and float, where the
// returned old values plus the final value must be exactly the initial value and all stored values.
#include "conformance.h"
#include <vector>

constexpr int BLOCK = 256;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;

struct Words {
    unsigned bitmap[N / 32];
    unsigned long long bitmap64[N / 64];
    unsigned cleared;
    unsigned long long cleared64;
    unsigned x;
    unsigned long long x64;
    int exch;
    unsigned long long exch64;
    float exchf;
};

__device__ unsigned hash(unsigned v) {
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    return v;
}

__global__ void bitwise(Words* w, unsigned* or_old, int* exch_old, unsigned long long* exch64_old, float* exchf_old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bit = 1u << (i % 32);
    if (i % 3 != 1) or_old[i] = atomicOr(&w->bitmap[i / 32], bit) & bit;  // my bit was not set before
    else or_old[i] = 0;
    if (i % 5 == 2) atomicOr(&w->bitmap64[i / 64], 1ULL << (i % 64));
    if (i % 7 == 3) atomicAnd(&w->cleared, ~bit);
    if (i % 11 == 4) atomicAnd(&w->cleared64, ~(1ULL << (i % 64)));
    atomicXor(&w->x, hash(i));
    atomicXor(&w->x64, (unsigned long long)hash(i) << (i % 33));
    exch_old[i] = atomicExch(&w->exch, i + 1);
    exch64_old[i] = atomicExch(&w->exch64, (unsigned long long)(i + 1) << 32);
    exchf_old[i] = atomicExch(&w->exchf, (float)(i + 1));
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    Words init{};
    init.cleared = 0xffffffffu;
    init.cleared64 = ~0ULL;
    init.x = 0x12345678u;
    init.x64 = 0x1122334455667788ULL;
    init.exch = 0;
    init.exch64 = 0;
    init.exchf = 0.0f;
    Words* dw;
    unsigned* dor;
    int* dex;
    unsigned long long* dex64;
    float* dexf;
    CHECK(cudaMalloc(&dw, sizeof(Words)));
    CHECK(cudaMalloc(&dor, sizeof(unsigned) * N));
    CHECK(cudaMalloc(&dex, sizeof(int) * N));
    CHECK(cudaMalloc(&dex64, sizeof(unsigned long long) * N));
    CHECK(cudaMalloc(&dexf, sizeof(float) * N));
    CHECK(cudaMemcpy(dw, &init, sizeof init, cudaMemcpyHostToDevice));
    bitwise<<<BLOCKS, BLOCK>>>(dw, dor, dex, dex64, dexf);
    CHECK_KERNEL();
    Words w;
    static unsigned oor[N];
    static int oex[N];
    static unsigned long long oex64[N];
    static float oexf[N];
    CHECK(cudaMemcpy(&w, dw, sizeof w, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oor, dor, sizeof oor, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oex, dex, sizeof oex, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oex64, dex64, sizeof oex64, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oexf, dexf, sizeof oexf, cudaMemcpyDeviceToHost));

    auto hhash = [](unsigned v) { v ^= v >> 16; v *= 0x7feb352du; v ^= v >> 15; return v; };
    unsigned bitmap[N / 32] = {};
    unsigned long long bitmap64[N / 64] = {};
    unsigned cleared = init.cleared, x = init.x;
    unsigned long long cleared64 = init.cleared64, x64 = init.x64;
    for (int i = 0; i < N; ++i) {
        if (i % 3 != 1) bitmap[i / 32] |= 1u << (i % 32);
        if (i % 5 == 2) bitmap64[i / 64] |= 1ULL << (i % 64);
        if (i % 7 == 3) cleared &= ~(1u << (i % 32));
        if (i % 11 == 4) cleared64 &= ~(1ULL << (i % 64));
        x ^= hhash(i);
        x64 ^= (unsigned long long)hhash(i) << (i % 33);
        t.eq("or: my bit already set", i, 0u, oor[i]);
    }
    for (int k = 0; k < N / 32; ++k) t.eq("bitmap", k, bitmap[k], w.bitmap[k]);
    for (int k = 0; k < N / 64; ++k) t.eq("bitmap64", k, bitmap64[k], w.bitmap64[k]);
    t.eq("and", 0, cleared, w.cleared);
    t.eq("and64", 0, cleared64, w.cleared64);
    t.eq("xor", 0, x, w.x);
    t.eq("xor64", 0, x64, w.x64);
    // exchange: {olds} + {final} == {0 (initial), 1, ..., N}, each once
    std::vector<int> seen(N + 1, 0), seen64(N + 1, 0), seenf(N + 1, 0);
    auto mark = [&](std::vector<int>& s, long long v) { if (v >= 0 && v <= N) s[v]++; };
    for (int i = 0; i < N; ++i) {
        mark(seen, oex[i]);
        mark(seen64, (oex64[i] & 0xffffffffULL) ? -1 : (long long)(oex64[i] >> 32));
        mark(seenf, oexf[i] == (float)(int)oexf[i] ? (long long)oexf[i] : -1);
    }
    mark(seen, w.exch);
    mark(seen64, (long long)(w.exch64 >> 32));
    mark(seenf, (long long)w.exchf);
    for (int v = 0; v <= N; ++v) {
        t.eq("exch: count of value", v, 1, seen[v]);
        t.eq("exch64: count of value", v, 1, seen64[v]);
        t.eq("exchf: count of value", v, 1, seenf[v]);
    }
    return t.finish();
}
