// 072_atomic_scopes: scoped atomics: atomicAdd_block/atomicCAS_block/atomicExch_block on shared and
// global memory used only within one block, atomicAdd_system/atomicOr_system on device memory, and
// device-scope atomics mixed with them, checked through order-independent results.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;

__global__ void scopes(const int* in, int* per_block, int* dev_total, unsigned* sys_bits, unsigned long long* sys_sum,
                       int* block_cas) {
    __shared__ int s_sum;
    __shared__ int s_owner;
    int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    if (tid == 0) {
        s_sum = 0;
        s_owner = -1;
    }
    __syncthreads();
    int v = in[gid];
    atomicAdd_block(&s_sum, v);                           // shared, block scope
    atomicAdd_block(&per_block[blockIdx.x], 1);           // global, but only this block touches it
    atomicCAS_block(&s_owner, -1, tid);                   // first thread wins
    atomicCAS_block(&block_cas[blockIdx.x], 0, gid + 1);  // global, block scope
    atomicAdd(dev_total, v);                              // device scope
    atomicOr_system(&sys_bits[gid / 32], 1u << (gid % 32));
    atomicAdd_system(sys_sum, (unsigned long long)(v + 200000));
    __syncthreads();
    if (tid == 0) {
        per_block[BLOCKS + blockIdx.x] = s_sum;
        per_block[2 * BLOCKS + blockIdx.x] = atomicExch_block(&s_owner, -2);
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(72);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int *din, *dper, *dtot, *dcas;
    unsigned* dbits;
    unsigned long long* dsys;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dper, sizeof(int) * 3 * BLOCKS));
    CHECK(cudaMalloc(&dtot, sizeof(int)));
    CHECK(cudaMalloc(&dcas, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&dbits, sizeof(unsigned) * N / 32));
    CHECK(cudaMalloc(&dsys, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dper, 0, sizeof(int) * 3 * BLOCKS));
    CHECK(cudaMemset(dtot, 0, sizeof(int)));
    CHECK(cudaMemset(dcas, 0, sizeof(int) * BLOCKS));
    CHECK(cudaMemset(dbits, 0, sizeof(unsigned) * N / 32));
    CHECK(cudaMemset(dsys, 0, sizeof(unsigned long long)));
    scopes<<<BLOCKS, BLOCK>>>(din, dper, dtot, dbits, dsys, dcas);
    CHECK_KERNEL();
    int per[3 * BLOCKS], tot = 0, cas[BLOCKS];
    unsigned bits[N / 32];
    unsigned long long sys = 0;
    CHECK(cudaMemcpy(per, dper, sizeof per, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&tot, dtot, sizeof tot, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(cas, dcas, sizeof cas, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bits, dbits, sizeof bits, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sys, dsys, sizeof sys, cudaMemcpyDeviceToHost));
    long long total = 0;
    unsigned long long ssum = 0;
    for (int b = 0; b < BLOCKS; ++b) {
        long long bs = 0;
        for (int k = 0; k < BLOCK; ++k) bs += hin[b * BLOCK + k];
        total += bs;
        t.eq("block count", b, BLOCK, per[b]);
        t.eq("block shared sum", b, (int)bs, per[BLOCKS + b]);
        int owner = per[2 * BLOCKS + b];
        t.check(owner >= 0 && owner < BLOCK, "block %d: CAS owner %d is not a thread of the block", b, owner);
        t.check(cas[b] >= b * BLOCK + 1 && cas[b] <= (b + 1) * BLOCK, "block %d: CAS winner %d not from the block", b,
                cas[b]);
    }
    for (int k = 0; k < N; ++k) ssum += (unsigned long long)(hin[k] + 200000);
    t.eq("device total", 0, (int)total, tot);
    t.eq("system sum", 0, ssum, sys);
    for (int w = 0; w < N / 32; ++w) t.eq("system bits", w, 0xffffffffu, bits[w]);
    return t.finish();
}
