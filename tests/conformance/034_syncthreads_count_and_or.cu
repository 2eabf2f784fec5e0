// 034_syncthreads_count_and_or: __syncthreads in a multi-round shared-memory computation, and
// __syncthreads_count/_and/_or with predicates that are all-true, all-false, mixed and data-dependent,
// in blocks whose size is not a multiple of 32 (the last warp is partial).
#include "conformance.h"

constexpr int BLOCK = 200;  // 6 full warps + one of 8 threads
constexpr int BLOCKS = 3;
constexpr int N = BLOCK * BLOCKS;
constexpr int ROUNDS = 6;
constexpr int K = 4;

__global__ void barriers(const int* v, int* out, int* data_out) {
    __shared__ int buf[BLOCK];
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    int x = v[gid];
    buf[tid] = x;
    __syncthreads();
    for (int r = 0; r < ROUNDS; ++r) {
        int left = buf[(tid + BLOCK - 1) % BLOCK], right = buf[(tid + 1) % BLOCK];
        int mine = buf[tid];
        int pos = __syncthreads_count(mine > 0);        // also a barrier: the reads above are done
        int all = __syncthreads_and(mine > -1000000);   // true for every thread
        int any = __syncthreads_or(mine == 12345);      // false for every thread
        int mixed = __syncthreads_and(tid < BLOCK - 1); // false: one thread disagrees
        buf[tid] = (left + right) / 2 - mine / 4 + r;
        __syncthreads();
        if (tid == 0) {
            int* o = out + (blockIdx.x * ROUNDS + r) * K;
            o[0] = pos;
            o[1] = all;
            o[2] = any;
            o[3] = mixed;
        }
    }
    data_out[gid] = buf[tid];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(34);
    static int hv[N];
    for (int k = 0; k < N; ++k) hv[k] = rng.next_int(-1000, 1000);
    int *dv, *dout, *ddata;
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&dout, sizeof(int) * BLOCKS * ROUNDS * K));
    CHECK(cudaMalloc(&ddata, sizeof(int) * N));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    barriers<<<BLOCKS, BLOCK>>>(dv, dout, ddata);
    CHECK_KERNEL();
    static int r[BLOCKS * ROUNDS * K], rdata[N];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rdata, ddata, sizeof rdata, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        int buf[BLOCK], next[BLOCK];
        for (int k = 0; k < BLOCK; ++k) buf[k] = hv[b * BLOCK + k];
        for (int round = 0; round < ROUNDS; ++round) {
            int pos = 0;
            bool all = true, any = false;
            for (int k = 0; k < BLOCK; ++k) {
                pos += buf[k] > 0;
                all = all && buf[k] > -1000000;
                any = any || buf[k] == 12345;
                next[k] = (buf[(k + BLOCK - 1) % BLOCK] + buf[(k + 1) % BLOCK]) / 2 - buf[k] / 4 + round;
            }
            const int* o = r + (b * ROUNDS + round) * K;
            t.eq("count", b * ROUNDS + round, pos, o[0]);
            t.check((o[1] != 0) == all, "and[%d]: expected %d, got %d", b * ROUNDS + round, (int)all, o[1]);
            t.check((o[2] != 0) == any, "or[%d]: expected %d, got %d", b * ROUNDS + round, (int)any, o[2]);
            t.check(o[3] == 0, "and(mixed)[%d]: expected 0, got %d", b * ROUNDS + round, o[3]);
            for (int k = 0; k < BLOCK; ++k) buf[k] = next[k];
        }
        for (int k = 0; k < BLOCK; ++k) t.eq("data", b * BLOCK + k, buf[k], rdata[b * BLOCK + k]);
    }
    return t.finish();
}
