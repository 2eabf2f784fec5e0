// 035_named_barriers: PTX named barriers through inline asm: two warps exchanging data with
// "bar.sync 1, 64" (double-buffered rounds), a producer warp and a consumer warp handing a slot back and
// forth with "bar.arrive"/"bar.sync" on barriers 2 (full) and 3 (empty), and "bar.sync 4" with the default
// (all threads) count. The PTX ISA guarantees that when a barrier completes, the memory accesses an
// arriving thread made before bar.arrive are performed; compute-sanitizer's racecheck (CUDA 13.0) does
// not model that and reports the slot hand-off as a hazard, which is a false alarm.
#include "conformance.h"

constexpr int BLOCK = 128;  // warps 0-1: exchange group, warp 2: producer, warp 3: consumer
constexpr int BLOCKS = 2;
constexpr int ROUNDS = 5;

__device__ __forceinline__ void bar_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__global__ void named(const int* in, int* exch_out, int* consumed_out, int* final_out) {
    __shared__ int ex[2][64];
    __shared__ int slot[32];
    __shared__ int total[BLOCK];
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int base = blockIdx.x * BLOCK;
    int acc = 0;
    if (warp < 2) {
        int v = in[base + tid];
        for (int r = 0; r < ROUNDS; ++r) {
            ex[r % 2][tid] = v + r;
            bar_sync(1, 64);  // only warps 0 and 1
            v = ex[r % 2][63 - tid] * 2 - v;
        }
        acc = v;
    } else if (warp == 2) {  // producer
        for (int r = 0; r < ROUNDS; ++r) {
            if (r > 0) bar_sync(3, 64);  // wait until the consumer has emptied the slot
            slot[lane] = in[base + lane] * 10 + r;
            bar_arrive(2, 64);           // slot is full; do not wait
        }
        acc = -1;
    } else {  // consumer
        for (int r = 0; r < ROUNDS; ++r) {
            bar_sync(2, 64);  // wait for a full slot
            acc += slot[31 - lane];
            if (r < ROUNDS - 1) bar_arrive(3, 64);  // slot is empty again; do not wait
        }
    }
    total[tid] = acc;
    asm volatile("bar.sync 4;" ::: "memory");  // all threads of the block
    if (warp < 2) exch_out[blockIdx.x * 64 + tid] = total[tid];
    if (warp == 3) consumed_out[blockIdx.x * 32 + lane] = total[tid];
    __syncthreads();
    final_out[base + tid] = total[(tid + 32) % BLOCK];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(35);
    static int hin[BLOCK * BLOCKS];
    for (int k = 0; k < BLOCK * BLOCKS; ++k) hin[k] = rng.next_int(-1000, 1000);
    int *din, *dex, *dcons, *dfin;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dex, sizeof(int) * 64 * BLOCKS));
    CHECK(cudaMalloc(&dcons, sizeof(int) * 32 * BLOCKS));
    CHECK(cudaMalloc(&dfin, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    named<<<BLOCKS, BLOCK>>>(din, dex, dcons, dfin);
    CHECK_KERNEL();
    static int rex[64 * BLOCKS], rcons[32 * BLOCKS], rfin[BLOCK * BLOCKS];
    CHECK(cudaMemcpy(rex, dex, sizeof rex, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rcons, dcons, sizeof rcons, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rfin, dfin, sizeof rfin, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        const int* in = hin + b * BLOCK;
        int v[64], nv[64], total[BLOCK];
        for (int k = 0; k < 64; ++k) v[k] = in[k];
        for (int r = 0; r < ROUNDS; ++r) {
            for (int k = 0; k < 64; ++k) nv[k] = (v[63 - k] + r) * 2 - v[k];
            for (int k = 0; k < 64; ++k) v[k] = nv[k];
        }
        for (int k = 0; k < 64; ++k) total[k] = v[k];
        for (int k = 64; k < 96; ++k) total[k] = -1;
        for (int lane = 0; lane < 32; ++lane) {
            int s = 0;
            for (int r = 0; r < ROUNDS; ++r) s += in[31 - lane] * 10 + r;
            total[96 + lane] = s;
        }
        for (int k = 0; k < 64; ++k) t.eq("exchange", b * 64 + k, total[k], rex[b * 64 + k]);
        for (int k = 0; k < 32; ++k) t.eq("consumed", b * 32 + k, total[96 + k], rcons[b * 32 + k]);
        for (int k = 0; k < BLOCK; ++k) t.eq("final", b * BLOCK + k, total[(k + 32) % BLOCK], rfin[b * BLOCK + k]);
    }
    return t.finish();
}
