// 056_histogram_shared: a histogram with per-block privatized bins in shared memory (zeroed with a
// strided loop, shared atomicAdd, __syncthreads, then merged into global bins with atomicAdd), over a
// skewed input so that many threads hit the same bins.
#include "conformance.h"

constexpr int BINS = 100;  // not a multiple of the block size
constexpr int BLOCK = 128;
constexpr int BLOCKS = 4;
constexpr int N = 6000;

__global__ void histogram(const unsigned char* in, int n, unsigned* bins) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[in[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(56);
    static unsigned char hin[N];
    for (int k = 0; k < N; ++k) {
        unsigned r = rng.next_u32();
        hin[k] = (unsigned char)(r % 4 == 0 ? r % 256 : (r >> 8) % 8);  // most values fall in 8 bins
    }
    unsigned char* din;
    unsigned* dbins;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dbins, sizeof(unsigned) * BINS));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dbins, 0, sizeof(unsigned) * BINS));
    histogram<<<BLOCKS, BLOCK>>>(din, N, dbins);
    CHECK_KERNEL();
    unsigned bins[BINS];
    CHECK(cudaMemcpy(bins, dbins, sizeof bins, cudaMemcpyDeviceToHost));
    unsigned expect[BINS] = {};
    for (int k = 0; k < N; ++k) expect[hin[k] % BINS]++;
    unsigned total = 0;
    for (int b = 0; b < BINS; ++b) {
        t.eq("bin", b, expect[b], bins[b]);
        total += bins[b];
    }
    t.eq("total", 0, (unsigned)N, total);
    return t.finish();
}
