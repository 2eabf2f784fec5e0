// 019_static_shared: several statically sized __shared__ arrays of different types (int, double, char,
// a padded 2-D float tile) written by all threads and read back at other threads' indices after
// __syncthreads, plus a __shared__ variable declared inside a __device__ function.
#include "conformance.h"

constexpr int BLOCK = 256;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 5;

__device__ int block_count_odd(int v) {
    __shared__ int counter;  // function-scope static shared memory
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
    if (v & 1) atomicAdd(&counter, 1);
    __syncthreads();
    return counter;
}

__global__ void static_shared(const int* in, int* out) {
    __shared__ int si[BLOCK];
    __shared__ double sd[64];
    __shared__ unsigned char sc[BLOCK];
    __shared__ float tile[16][17];
    int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    si[tid] = in[gid] * 3;
    if (tid < 64) sd[tid] = tid * 0.5 + blockIdx.x;
    sc[tid] = (unsigned char)(tid * 7);
    tile[tid / 16][tid % 16] = (float)(tid + in[gid]);
    __syncthreads();
    int* o = out + gid * K;
    o[0] = si[BLOCK - 1 - tid];
    o[1] = (int)(sd[tid % 64] * 2.0);
    o[2] = sc[(tid * 13) & (BLOCK - 1)];
    o[3] = (int)tile[tid % 16][tid / 16];
    o[4] = block_count_odd(si[tid] + tid);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(19);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    static_shared<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"int[]", "double[]", "char[]", "tile[][]", "fn-shared"};
    for (int b = 0; b < BLOCKS; ++b) {
        int odd = 0;
        for (int tid = 0; tid < BLOCK; ++tid) odd += ((hin[b * BLOCK + tid] * 3 + tid) % 2) != 0;
        for (int tid = 0; tid < BLOCK; ++tid) {
            int gid = b * BLOCK + tid;
            int m = tid % 64, row = tid % 16, col = tid / 16;  // tile[row][col] was written by thread row*16+col
            int e[K] = {hin[b * BLOCK + BLOCK - 1 - tid] * 3, (int)((m * 0.5 + b) * 2.0), ((tid * 13) % BLOCK * 7) & 0xff,
                        row * 16 + col + hin[b * BLOCK + row * 16 + col], odd};
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
