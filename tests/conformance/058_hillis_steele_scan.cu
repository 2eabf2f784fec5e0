// 058_hillis_steele_scan: a Hillis-Steele inclusive scan in shared memory with double buffering
// (ping-pong buffers, one __syncthreads per step), per-block sums scanned by a single block, and a
// third kernel adding the block offsets: a full-array inclusive and exclusive scan.
#include "conformance.h"

constexpr int BLOCK = 256;
constexpr int BLOCKS = 8;
constexpr int N = BLOCK * BLOCKS - 37;  // the last block is partial

__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
    __shared__ int buf[2][BLOCK];
    int tid = threadIdx.x, i = blockIdx.x * BLOCK + tid;
    int cur = 0;
    buf[cur][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 1; d < BLOCK; d *= 2) {
        int nxt = 1 - cur;
        buf[nxt][tid] = tid >= d ? buf[cur][tid] + buf[cur][tid - d] : buf[cur][tid];
        __syncthreads();
        cur = nxt;
    }
    if (i < n) out[i] = buf[cur][tid];
    if (block_sums && tid == BLOCK - 1) block_sums[blockIdx.x] = buf[cur][tid];
}

__global__ void add_offsets(int* inc, int* exc, const int* in, const int* scanned_sums, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    int offset = blockIdx.x > 0 ? scanned_sums[blockIdx.x - 1] : 0;
    inc[i] += offset;
    exc[i] = inc[i] - in[i];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(58);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    int *din, *dinc, *dexc, *dsums, *dscanned;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dinc, sizeof hin));
    CHECK(cudaMalloc(&dexc, sizeof hin));
    CHECK(cudaMalloc(&dsums, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&dscanned, sizeof(int) * BLOCKS));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    block_scan<<<BLOCKS, BLOCK>>>(din, dinc, dsums, N);
    CHECK_KERNEL();
    static int rblock[N];
    CHECK(cudaMemcpy(rblock, dinc, sizeof rblock, cudaMemcpyDeviceToHost));
    block_scan<<<1, BLOCK>>>(dsums, dscanned, nullptr, BLOCKS);
    CHECK_KERNEL();
    add_offsets<<<BLOCKS, BLOCK>>>(dinc, dexc, din, dscanned, N);
    CHECK_KERNEL();
    static int rinc[N], rexc[N];
    CHECK(cudaMemcpy(rinc, dinc, sizeof rinc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rexc, dexc, sizeof rexc, cudaMemcpyDeviceToHost));
    int run = 0, brun = 0;
    for (int k = 0; k < N; ++k) {
        if (k % BLOCK == 0) brun = 0;
        brun += hin[k];
        t.eq("per-block scan", k, brun, rblock[k]);
        t.eq("exclusive", k, run, rexc[k]);
        run += hin[k];
        t.eq("inclusive", k, run, rinc[k]);
    }
    return t.finish();
}
