// 022_device_globals: __device__ global variables (scalars, arrays, a struct, one with an initializer)
// written and read with cudaMemcpyToSymbol/FromSymbol, cudaGetSymbolAddress/Size, and state that
// persists across kernel launches.
#include "conformance.h"

constexpr int N = 128;

struct Stats {
    int count;
    long long total;
};

__device__ int g_counter;
__device__ long long g_init = 1234567890123LL;
__device__ float g_arr[N];
__device__ Stats g_stats;

__global__ void step(int round) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    g_arr[i] = g_arr[i] * 2.0f + (float)round;
    atomicAdd(&g_counter, 1);
    atomicAdd(&g_stats.count, i % 3 == 0 ? 1 : 0);
    atomicAdd((unsigned long long*)&g_stats.total, (unsigned long long)(i + round));
    if (i == 0) g_init += round;  // one writer
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    float harr[N];
    for (int k = 0; k < N; ++k) harr[k] = (float)(k - 64);
    int zero = 5;  // the counter starts at 5
    Stats s0 = {0, 100};
    CHECK(cudaMemcpyToSymbol(g_counter, &zero, sizeof zero));
    CHECK(cudaMemcpyToSymbol(g_arr, harr, sizeof harr));
    CHECK(cudaMemcpyToSymbol(g_stats, &s0, sizeof s0));

    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, g_arr));
    t.eq("symbol size", 0, (unsigned long long)(N * sizeof(float)), (unsigned long long)size);
    float* parr = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&parr, g_arr));

    const int rounds = 3;
    for (int r = 1; r <= rounds; ++r) {
        step<<<N / 32, 32>>>(r);
        CHECK_KERNEL();
    }
    int counter = 0;
    long long init = 0;
    Stats st;
    float back[N], viaptr[N];
    CHECK(cudaMemcpyFromSymbol(&counter, g_counter, sizeof counter));
    CHECK(cudaMemcpyFromSymbol(&init, g_init, sizeof init));
    CHECK(cudaMemcpyFromSymbol(&st, g_stats, sizeof st));
    CHECK(cudaMemcpyFromSymbol(back, g_arr, sizeof back));
    CHECK(cudaMemcpy(viaptr, parr, sizeof viaptr, cudaMemcpyDeviceToHost));  // same memory, through its address

    t.eq("counter", 0, 5 + rounds * N, counter);
    t.eq("initialised", 0, 1234567890123LL + 1 + 2 + 3, init);
    int count = 0;
    long long total = 100;
    for (int r = 1; r <= rounds; ++r)
        for (int i = 0; i < N; ++i) {
            count += i % 3 == 0;
            total += i + r;
        }
    t.eq("stats.count", 0, count, st.count);
    t.eq("stats.total", 0, total, st.total);
    for (int k = 0; k < N; ++k) {
        float v = (float)(k - 64);
        for (int r = 1; r <= rounds; ++r) v = v * 2.0f + (float)r;
        t.eq("g_arr", k, v, back[k]);
        t.eq("g_arr via address", k, v, viaptr[k]);
    }
    return t.finish();
}
