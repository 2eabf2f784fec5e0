// 082_rdc_device_link: separate compilation (-rdc=true) and device linking across three translation
// units: the kernel here calls __device__ functions defined in 082_rdc_device_link.math.cu, reads a
// __constant__ table and updates an extern __device__ counter defined in 082_rdc_device_link.data.cu
// (filled with cudaMemcpyToSymbol from this file), and the math unit reads a __device__ variable
// defined here; a kernel of the data unit is launched through a host function defined there.
#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 3;
constexpr int N = BLOCK * BLOCKS;
constexpr int TABLE = 16;

// Defined in 082_rdc_device_link.math.cu.
__device__ unsigned mix(unsigned x, unsigned salt);
__device__ int scaled(int x);
// Defined in 082_rdc_device_link.data.cu.
extern __constant__ unsigned c_table[TABLE];
extern __device__ unsigned long long g_calls;
extern __device__ int g_bias;
void launch_bias_kernel(int* out, int n);  // host function of the data unit

// Defined here, read by scaled() in the math unit.
__device__ int g_scale = 7;

__global__ void linked(const unsigned* in, unsigned* out, int* out2) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = mix(in[g], c_table[g % TABLE]);
    out2[g] = scaled((int)(in[g] & 0xfff)) + g_bias;
    atomicAdd(&g_calls, 1ULL);
}

// The host's copies of the same computations.
static unsigned host_mix(unsigned x, unsigned salt) {
    x ^= salt;
    x *= 0x9e3779b1u;
    x ^= x >> 15;
    return x + salt * 3u;
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(82);
    static unsigned hin[N], table[TABLE], hout[N];
    static int hout2[N], hbias[N];
    for (int i = 0; i < N; ++i) hin[i] = rng.next_u32();
    for (int i = 0; i < TABLE; ++i) table[i] = rng.next_u32();
    const int scale = 11, bias = -5;

    CHECK(cudaMemcpyToSymbol(c_table, table, sizeof table));
    CHECK(cudaMemcpyToSymbol(g_scale, &scale, sizeof scale));
    CHECK(cudaMemcpyToSymbol(g_bias, &bias, sizeof bias));
    unsigned *din, *dout;
    int *dout2, *dbias;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMalloc(&dout2, sizeof hout2));
    CHECK(cudaMalloc(&dbias, sizeof hbias));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    linked<<<BLOCKS, BLOCK>>>(din, dout, dout2);
    CHECK_KERNEL();
    launch_bias_kernel(dbias, N);
    CHECK_KERNEL();
    unsigned long long calls = 0;
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hout2, dout2, sizeof hout2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hbias, dbias, sizeof hbias, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&calls, g_calls, sizeof calls));

    for (int i = 0; i < N; ++i) {
        c.eq("mix", i, host_mix(hin[i], table[i % TABLE]), hout[i]);
        c.eq("scaled", i, (int)(hin[i] & 0xfff) * scale - 3 + bias, hout2[i]);
        // The data unit's kernel: its own reads of the table, the bias and the counter.
        c.eq("bias_kernel", i, (int)(table[i % TABLE] & 0xff) + bias * i + N, hbias[i]);
    }
    c.eq("g_calls", 0, (unsigned long long)N, calls);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dout2);
    cudaFree(dbias);
    return c.finish();
}
