// 069_block_spinlock: a global mutex built from atomicCAS (acquire) and atomicExch (release) with
// __threadfence, taken by one leader thread per block (never by several lanes of one warp, so it is
// safe without independent thread scheduling); the critical section does non-atomic read-modify-writes
// of shared global counters, which must not lose updates.
#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 8;
constexpr int ROUNDS = 5;

struct Guarded {
    int lock;
    int counter;
    long long sum;
    int order_check;  // incremented by one in every critical section: must equal the entries
};

__global__ void locked(Guarded* g, int* entries) {
    __shared__ int s_contrib;
    if (threadIdx.x == 0) s_contrib = 0;
    __syncthreads();
    atomicAdd(&s_contrib, (int)threadIdx.x + 1);
    __syncthreads();
    for (int r = 0; r < ROUNDS; ++r) {
        if (threadIdx.x == 0) {
            while (atomicCAS(&g->lock, 0, 1) != 0) {
            }
            __threadfence();  // acquire: see the previous owner's writes
            volatile Guarded* v = g;
            int c = v->counter;
            v->counter = c + 1;
            v->sum = v->sum + s_contrib + blockIdx.x;
            v->order_check = v->order_check + 1;
            __threadfence();  // release: our writes before the unlock
            atomicExch(&g->lock, 0);
            atomicAdd(entries, 1);
        }
        __syncthreads();
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    Guarded* dg;
    int* dentries;
    CHECK(cudaMalloc(&dg, sizeof(Guarded)));
    CHECK(cudaMalloc(&dentries, sizeof(int)));
    CHECK(cudaMemset(dg, 0, sizeof(Guarded)));
    CHECK(cudaMemset(dentries, 0, sizeof(int)));
    locked<<<BLOCKS, BLOCK>>>(dg, dentries);
    CHECK_KERNEL();
    Guarded g;
    int entries = 0;
    CHECK(cudaMemcpy(&g, dg, sizeof g, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&entries, dentries, sizeof entries, cudaMemcpyDeviceToHost));
    long long contrib = 0;
    for (int k = 0; k < BLOCK; ++k) contrib += k + 1;
    long long sum = 0;
    for (int b = 0; b < BLOCKS; ++b) sum += ROUNDS * (contrib + b);
    t.eq("lock released", 0, 0, g.lock);
    t.eq("entries", 0, BLOCKS * ROUNDS, entries);
    t.eq("counter", 0, BLOCKS * ROUNDS, g.counter);
    t.eq("sum", 0, sum, g.sum);
    t.eq("order_check", 0, BLOCKS * ROUNDS, g.order_check);
    return t.finish();
}
