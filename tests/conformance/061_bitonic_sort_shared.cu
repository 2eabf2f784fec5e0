// 061_bitonic_sort_shared: bitonic sort of 512 keys per block in shared memory (256 threads, one
// compare-exchange per thread per stage, a __syncthreads between stages), with duplicates and negative
// keys, each block's result compared with std::sort on the host.
#include "conformance.h"
#include <algorithm>

constexpr int THREADS = 256;
constexpr int KEYS = 2 * THREADS;
constexpr int BLOCKS = 4;

__global__ void bitonic(int* data) {
    __shared__ int s[KEYS];
    int tid = threadIdx.x;
    int* d = data + blockIdx.x * KEYS;
    s[tid] = d[tid];
    s[tid + THREADS] = d[tid + THREADS];
    __syncthreads();
    for (int k = 2; k <= KEYS; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            int i = 2 * j * (tid / j) + tid % j;  // lower index of this thread's pair
            int p = i + j;
            bool ascending = (i & k) == 0;
            int a = s[i], b = s[p];
            if ((a > b) == ascending) {
                s[i] = b;
                s[p] = a;
            }
            __syncthreads();
        }
    }
    d[tid] = s[tid];
    d[tid + THREADS] = s[tid + THREADS];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(61);
    static int h[KEYS * BLOCKS], out[KEYS * BLOCKS];
    for (int k = 0; k < KEYS * BLOCKS; ++k) h[k] = k % 7 == 0 ? 42 : rng.next_int(-500, 500);
    for (int k = KEYS; k < 2 * KEYS; ++k) h[k] = 2 * KEYS - k;  // block 1: reverse sorted
    int* d;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    bitonic<<<BLOCKS, THREADS>>>(d);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        std::sort(h + b * KEYS, h + (b + 1) * KEYS);
        for (int k = 0; k < KEYS; ++k) t.eq("sorted", b * KEYS + k, h[b * KEYS + k], out[b * KEYS + k]);
    }
    return t.finish();
}
