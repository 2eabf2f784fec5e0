// 082_rdc_device_link.data.cu: the module variables of conformance program 082_rdc_device_link
// (separate compilation) and a kernel of their own, launched through a host function.
#include <cuda_runtime.h>

constexpr int TABLE = 16;

__constant__ unsigned c_table[TABLE];
__device__ unsigned long long g_calls = 0;
__device__ int g_bias = 0;

__global__ void bias_kernel(int* out, int n) {
    // Runs after the main unit's kernel (same stream): the count it left is complete.
    const unsigned long long before = g_calls;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int)(c_table[i % TABLE] & 0xffu) + g_bias * i + (int)before;
}

void launch_bias_kernel(int* out, int n) { bias_kernel<<<(n + 63) / 64, 64>>>(out, n); }
