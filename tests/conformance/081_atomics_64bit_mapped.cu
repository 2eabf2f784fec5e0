// 081_atomics_64bit_mapped: 64-bit atomics (atomicAdd, atomicCAS, atomicExch and atomicAnd/Or/Xor on
// unsigned long long; atomicMax/atomicMin on long long and unsigned long long) on mapped pinned host
// memory (cudaHostAlloc with cudaHostAllocMapped + cudaHostGetDevicePointer) and on a device-memory
// twin; the host checks the order-independent results: totals, extremes, bit masks, and the old values
// of exchanges forming a permutation of what was stored.
#include "conformance.h"

#include <algorithm>
#include <vector>

constexpr int BLOCK = 128;
constexpr int BLOCKS = 3;
constexpr int N = BLOCK * BLOCKS;

struct Cells {
    unsigned long long sum;        // atomicAdd
    unsigned long long cas_sum;    // the same sum, through an atomicCAS loop
    long long smax, smin;          // atomicMax / atomicMin, signed
    unsigned long long umax, umin; // atomicMax / atomicMin, unsigned
    unsigned long long and_, or_, xor_;
    unsigned long long exch;       // atomicExch: the last value stored
};

__global__ void atomics64(const unsigned long long* in, Cells* cells, unsigned long long* olds) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long v = in[g];
    atomicAdd(&cells->sum, v);
    // No plain read of the cell (that would race with the atomics): start from a guess, which the
    // first failing atomicCAS corrects.
    unsigned long long seen = v, prev;
    do {
        prev = seen;
        seen = atomicCAS(&cells->cas_sum, prev, prev + v);
    } while (seen != prev);
    atomicMax(&cells->smax, (long long)v);
    atomicMin(&cells->smin, (long long)v);
    atomicMax(&cells->umax, v);
    atomicMin(&cells->umin, v);
    atomicAnd(&cells->and_, v | 0x0101010101010101ULL);
    atomicOr(&cells->or_, v & 0x8000000180000001ULL);
    atomicXor(&cells->xor_, v);
    olds[g] = atomicExch(&cells->exch, v);
}

static Cells initial_cells() {
    Cells c;
    c.sum = 0x0123456789abcdefULL;
    c.cas_sum = 0x0123456789abcdefULL;
    c.smax = -0x7000000000000000LL;
    c.smin = 0x7000000000000000LL;
    c.umax = 5;
    c.umin = 0xfffffffffffffff0ULL;
    c.and_ = ~0ULL;
    c.or_ = 0;
    c.xor_ = 0xa5a5a5a5a5a5a5a5ULL;
    c.exch = 0xdeadbeefcafef00dULL;
    return c;
}

static void check_cells(conf::Checker& t, const char* where, const Cells& got, const unsigned long long* olds,
                        const unsigned long long* in) {
    Cells w = initial_cells();
    for (int i = 0; i < N; ++i) {
        const unsigned long long v = in[i];
        w.sum += v;
        w.cas_sum += v;
        w.smax = std::max(w.smax, (long long)v);
        w.smin = std::min(w.smin, (long long)v);
        w.umax = std::max(w.umax, v);
        w.umin = std::min(w.umin, v);
        w.and_ &= v | 0x0101010101010101ULL;
        w.or_ |= v & 0x8000000180000001ULL;
        w.xor_ ^= v;
    }
    char what[64];
    auto name = [&](const char* field) { std::snprintf(what, sizeof what, "%s.%s", where, field); return what; };
    t.eq(name("sum"), 0, w.sum, got.sum);
    t.eq(name("cas_sum"), 0, w.cas_sum, got.cas_sum);
    t.eq(name("smax"), 0, w.smax, got.smax);
    t.eq(name("smin"), 0, w.smin, got.smin);
    t.eq(name("umax"), 0, w.umax, got.umax);
    t.eq(name("umin"), 0, w.umin, got.umin);
    t.eq(name("and"), 0, w.and_, got.and_);
    t.eq(name("or"), 0, w.or_, got.or_);
    t.eq(name("xor"), 0, w.xor_, got.xor_);
    // Exchange: {initial, all inputs} == {all old values, final value} as multisets.
    std::vector<unsigned long long> stored(in, in + N), returned(olds, olds + N);
    stored.push_back(initial_cells().exch);
    returned.push_back(got.exch);
    std::sort(stored.begin(), stored.end());
    std::sort(returned.begin(), returned.end());
    for (size_t i = 0; i < stored.size(); ++i) t.eq(name("exch_permutation"), (long long)i, stored[i], returned[i]);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(81);
    static unsigned long long hin[N];
    for (int i = 0; i < N; ++i) hin[i] = rng.next_u64();
    hin[7] = 0x8000000000000000ULL;   // the most negative long long
    hin[100] = 0x7fffffffffffffffULL; // the largest long long
    hin[200] = 3;                     // below umin's start

    unsigned long long* din;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));

    // Mapped pinned host memory: the kernel's atomics go straight to host memory.
    Cells* hcells = nullptr;
    unsigned long long* holds = nullptr;
    CHECK(cudaHostAlloc((void**)&hcells, sizeof(Cells), cudaHostAllocMapped));
    CHECK(cudaHostAlloc((void**)&holds, sizeof(unsigned long long) * N, cudaHostAllocMapped));
    *hcells = initial_cells();
    std::memset(holds, 0, sizeof(unsigned long long) * N);
    Cells* dcells_mapped = nullptr;
    unsigned long long* dolds_mapped = nullptr;
    CHECK(cudaHostGetDevicePointer((void**)&dcells_mapped, hcells, 0));
    CHECK(cudaHostGetDevicePointer((void**)&dolds_mapped, holds, 0));
    atomics64<<<BLOCKS, BLOCK>>>(din, dcells_mapped, dolds_mapped);
    CHECK_KERNEL();
    check_cells(t, "mapped", *hcells, holds, hin);

    // The device-memory twin.
    Cells* dcells;
    unsigned long long* dolds;
    CHECK(cudaMalloc(&dcells, sizeof(Cells)));
    CHECK(cudaMalloc(&dolds, sizeof(unsigned long long) * N));
    const Cells init = initial_cells();
    CHECK(cudaMemcpy(dcells, &init, sizeof init, cudaMemcpyHostToDevice));
    atomics64<<<BLOCKS, BLOCK>>>(din, dcells, dolds);
    CHECK_KERNEL();
    Cells got;
    static unsigned long long olds[N];
    CHECK(cudaMemcpy(&got, dcells, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(olds, dolds, sizeof olds, cudaMemcpyDeviceToHost));
    check_cells(t, "device", got, olds, hin);

    cudaFree(din);
    cudaFree(dcells);
    cudaFree(dolds);
    cudaFreeHost(hcells);
    cudaFreeHost(holds);
    return t.finish();
}
