// 057_block_tree_reduction: the classic shared-memory tree reduction (sequential addressing, a
// __syncthreads per level, the first add done while loading two elements) producing per-block partial
// sums, reduced again by a second single-block launch, for int and double data.
#include "conformance.h"

constexpr int BLOCK = 256;
constexpr int N = 5000;

template <class T>
__global__ void reduce(const T* in, T* out, int n) {
    __shared__ T s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * (blockDim.x * 2) + tid;
    T v = 0;
    if (i < n) v = in[i];
    if (i + (int)blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

template <class T>
static T run(conf::Checker& t, const T* host, const char* what) {
    int blocks = (N + 2 * BLOCK - 1) / (2 * BLOCK);  // 10
    T *din, *dpart, *dres;
    CHECK(cudaMalloc(&din, sizeof(T) * N));
    CHECK(cudaMalloc(&dpart, sizeof(T) * blocks));
    CHECK(cudaMalloc(&dres, sizeof(T)));
    CHECK(cudaMemcpy(din, host, sizeof(T) * N, cudaMemcpyHostToDevice));
    reduce<T><<<blocks, BLOCK>>>(din, dpart, N);
    CHECK_KERNEL();
    reduce<T><<<1, BLOCK>>>(dpart, dres, blocks);
    CHECK_KERNEL();
    T part[64], res;
    CHECK(cudaMemcpy(part, dpart, sizeof(T) * blocks, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&res, dres, sizeof(T), cudaMemcpyDeviceToHost));
    T total = 0;
    for (int b = 0; b < blocks; ++b) {
        T p = 0;  // partial sums in plain index order: exact for these inputs
        for (int k = b * 2 * BLOCK; k < (b + 1) * 2 * BLOCK && k < N; ++k) p += host[k];
        t.eq(what, b, p, part[b]);
        total += p;
    }
    t.eq(what, -1, total, res);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dpart));
    CHECK(cudaFree(dres));
    return res;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(57);
    static int hi[N];
    static double hd[N];
    for (int k = 0; k < N; ++k) {
        hi[k] = rng.next_int(-100000, 100000);
        hd[k] = rng.next_int(-100000, 100000) * 0.125;  // multiples of 1/8: every partial sum is exact
    }
    run<int>(t, hi, "int partial (index -1: total)");
    run<double>(t, hd, "double partial (index -1: total)");
    return t.finish();
}
