// 032_atomic_cas: atomicCAS on 32-bit, 64-bit and 16-bit words: CAS loops implementing add, float
// maximum (via __float_as_int) and double add, and lock-free hash-table insertion with linear probing
// where every key must end up stored exactly once.
#include "conformance.h"
#include <vector>

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int TABLE = 2 * N;

struct State {
    int sum;
    float fmax;
    double dsum;
    unsigned short count16;
    unsigned short pad;
};

__device__ float atomic_max_float(float* addr, float v) {
    int* a = (int*)addr;
    int old = *(volatile int*)a, assumed;  // first guess; the CAS checks it
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(a, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

__device__ void atomic_add_double(double* addr, double v) {
    unsigned long long* a = (unsigned long long*)addr;
    unsigned long long old = *(volatile unsigned long long*)a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) + v));
    } while (old != assumed);
}

__global__ void cas(State* s, const int* v, const float* fv, int* table, unsigned long long* table64) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = v[i];
    // 32-bit CAS loop: add
    int old = *(volatile int*)&s->sum, assumed;
    do {
        assumed = old;
        old = atomicCAS(&s->sum, assumed, assumed + x);
    } while (old != assumed);
    atomic_max_float(&s->fmax, fv[i]);
    atomic_add_double(&s->dsum, 0.5 * x);
    // 16-bit CAS loop (sm_70+)
    unsigned short o16 = *(volatile unsigned short*)&s->count16, a16;
    do {
        a16 = o16;
        o16 = atomicCAS(&s->count16, a16, (unsigned short)(a16 + 3));
    } while (o16 != a16);
    // hash insert with linear probing; slot value -1 = empty
    unsigned h = ((unsigned)i * 2654435761u) % (TABLE / 4);  // crowded start positions: long probe chains
    while (atomicCAS(&table[h], -1, i) != -1) h = (h + 1) % TABLE;
    unsigned long long key = ((unsigned long long)i << 32) | (unsigned)x;
    unsigned h2 = ((unsigned)x * 40503u) % TABLE;
    while (atomicCAS(&table64[h2], ~0ULL, key) != ~0ULL) h2 = (h2 + 1) % TABLE;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(32);
    static int hv[N];
    static float hf[N];
    for (int k = 0; k < N; ++k) {
        hv[k] = rng.next_int(-100000, 100000);
        hf[k] = rng.next_float(-1000.0f, 1000.0f);
    }
    State init{};
    init.sum = 17;
    init.fmax = -INFINITY;
    init.dsum = 0.25;
    init.count16 = 65000;  // wraps past 65535
    State* ds;
    int *dv, *dtable;
    float* df;
    unsigned long long* dtable64;
    CHECK(cudaMalloc(&ds, sizeof(State)));
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&df, sizeof hf));
    CHECK(cudaMalloc(&dtable, sizeof(int) * TABLE));
    CHECK(cudaMalloc(&dtable64, sizeof(unsigned long long) * TABLE));
    CHECK(cudaMemcpy(ds, &init, sizeof init, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dtable, 0xff, sizeof(int) * TABLE));                      // -1
    CHECK(cudaMemset(dtable64, 0xff, sizeof(unsigned long long) * TABLE));     // ~0
    cas<<<BLOCKS, BLOCK>>>(ds, dv, df, dtable, dtable64);
    CHECK_KERNEL();
    State s;
    static int table[TABLE];
    static unsigned long long table64[TABLE];
    CHECK(cudaMemcpy(&s, ds, sizeof s, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(table, dtable, sizeof table, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(table64, dtable64, sizeof table64, cudaMemcpyDeviceToHost));

    long long sum = 17;
    float fmax = -INFINITY;
    double dsum = 0.25;
    unsigned c16 = 65000;
    for (int k = 0; k < N; ++k) {
        sum += hv[k];
        if (hf[k] > fmax) fmax = hf[k];
        dsum += 0.5 * hv[k];  // multiples of 0.25: exact in any order
        c16 = (c16 + 3) & 0xffff;
    }
    t.eq("cas add", 0, (int)sum, s.sum);
    t.eq("cas float max", 0, fmax, s.fmax);
    t.eq("cas double add", 0, dsum, s.dsum);
    t.eq("cas16 count", 0, (unsigned short)c16, s.count16);
    std::vector<int> seen(N, 0), seen64(N, 0);
    int empty = 0, empty64 = 0;
    for (int h = 0; h < TABLE; ++h) {
        if (table[h] == -1) ++empty;
        else if (table[h] >= 0 && table[h] < N) seen[table[h]]++;
        if (table64[h] == ~0ULL) ++empty64;
        else {
            unsigned long long id = table64[h] >> 32;
            if (id < (unsigned long long)N && (int)(unsigned)table64[h] == hv[id]) seen64[id]++;
        }
    }
    t.eq("table empty slots", 0, TABLE - N, empty);
    t.eq("table64 empty slots", 0, TABLE - N, empty64);
    for (int k = 0; k < N; ++k) {
        t.eq("table: count of key", k, 1, seen[k]);
        t.eq("table64: count of key", k, 1, seen64[k]);
    }
    return t.finish();
}
