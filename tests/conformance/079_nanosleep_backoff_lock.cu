// 079_nanosleep_backoff_lock: a global test-and-set lock with exponential __nanosleep backoff
// (8 ns doubling up to 1 us), contended by lane 0 of every warp of every block (never by two lanes of
// one warp). Each critical section appends the holder's id to a log at the position given by a plain
// (non-atomic) counter: the log must be a permutation of all acquisitions, with every holder's own
// rounds in order, and the unprotected sum must not lose an update.
#include "conformance.h"

constexpr int BLOCK = 96;  // three warps
constexpr int BLOCKS = 4;
constexpr int WARPS = BLOCK / 32;
constexpr int HOLDERS = BLOCKS * WARPS;
constexpr int ROUNDS = 6;
constexpr int ENTRIES = HOLDERS * ROUNDS;

struct Shared {
    int lock;
    int count;           // number of critical sections so far (plain read-modify-write)
    long long sum;       // plain read-modify-write
    int log[ENTRIES];    // holder * ROUNDS + round, in the order the lock was taken
};

__global__ void contend(Shared* s, unsigned* tries) {
    const int warp = threadIdx.x / 32;
    const int holder = blockIdx.x * WARPS + warp;
    if (threadIdx.x % 32 != 0) return;  // one lane per warp contends
    unsigned attempts = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        unsigned ns = 8;
        for (;;) {
            ++attempts;
            if (atomicCAS(&s->lock, 0, 1) == 0) break;
            __nanosleep(ns);
            if (ns < 1024) ns *= 2;
        }
        __threadfence();  // acquire: the previous holder's writes are visible
        volatile Shared* v = s;
        const int pos = v->count;
        v->log[pos] = holder * ROUNDS + r;
        v->sum = v->sum + (long long)(holder + 1) * (r + 1);
        v->count = pos + 1;
        __threadfence();  // release: our writes before the unlock
        atomicExch(&s->lock, 0);
    }
    tries[holder] = attempts;
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    Shared* ds;
    unsigned* dtries;
    CHECK(cudaMalloc(&ds, sizeof(Shared)));
    CHECK(cudaMalloc(&dtries, sizeof(unsigned) * HOLDERS));
    CHECK(cudaMemset(ds, 0, sizeof(Shared)));
    CHECK(cudaMemset(dtries, 0, sizeof(unsigned) * HOLDERS));
    contend<<<BLOCKS, BLOCK>>>(ds, dtries);
    CHECK_KERNEL();
    static Shared h;
    unsigned tries[HOLDERS];
    CHECK(cudaMemcpy(&h, ds, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tries, dtries, sizeof tries, cudaMemcpyDeviceToHost));

    long long sum = 0;
    for (int holder = 0; holder < HOLDERS; ++holder)
        for (int r = 0; r < ROUNDS; ++r) sum += (long long)(holder + 1) * (r + 1);
    c.eq("lock released", 0, 0, h.lock);
    c.eq("count", 0, ENTRIES, h.count);
    c.eq("sum", 0, sum, h.sum);
    // The log: every entry once, and each holder's rounds in increasing order.
    static int seen[ENTRIES];
    int next_round[HOLDERS] = {};
    for (int i = 0; i < ENTRIES; ++i) {
        const int e = h.log[i];
        if (!c.check(e >= 0 && e < ENTRIES, "log[%d] = %d is out of range", i, e)) continue;
        c.check(seen[e]++ == 0, "log[%d]: entry %d appears twice", i, e);
        const int holder = e / ROUNDS, r = e % ROUNDS;
        c.check(r == next_round[holder], "log[%d]: holder %d round %d, expected round %d", i, holder, r,
                next_round[holder]);
        next_round[holder] = r + 1;
    }
    for (int holder = 0; holder < HOLDERS; ++holder)
        c.check(tries[holder] >= (unsigned)ROUNDS, "tries[%d] = %u < %d rounds", holder, tries[holder], ROUNDS);
    cudaFree(ds);
    cudaFree(dtries);
    return c.finish();
}
