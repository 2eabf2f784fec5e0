// 051_clock_globaltimer_nanosleep: clock64() strictly increases and %globaltimer never decreases within a
// thread across work and __nanosleep calls, and the global timer read by a kernel is not earlier than
// what the previous kernel in the same stream read.
#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;

__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void timers(const int* in, int* ok, int* work_out, unsigned long long* last_time) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    long long c0 = clock64();
    unsigned long long g0 = globaltimer();
    __nanosleep(500 + 10 * (threadIdx.x % 32));
    int acc = in[gid];
    for (int k = 0; k < 100; ++k) acc = (int)((unsigned)acc * 1103515245u + 12345u);
    long long c1 = clock64();
    unsigned long long g1 = globaltimer();
    __nanosleep(1000);
    long long c2 = clock64();
    unsigned long long g2 = globaltimer();
    ok[gid] = (c1 > c0 ? 1 : 0) | (c2 > c1 ? 2 : 0) | (g1 >= g0 ? 4 : 0) | (g2 >= g1 ? 8 : 0);
    work_out[gid] = acc;
    atomicMax(last_time, g2);
}

__global__ void first_time(unsigned long long* first) { atomicMin(first, globaltimer()); }

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = k * 17 + 3;
    int *din, *dok, *dwork;
    unsigned long long *dlast, *dfirst;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dok, sizeof(int) * N));
    CHECK(cudaMalloc(&dwork, sizeof(int) * N));
    CHECK(cudaMalloc(&dlast, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&dfirst, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dlast, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(dfirst, 0xff, sizeof(unsigned long long)));
    timers<<<BLOCKS, BLOCK>>>(din, dok, dwork, dlast);
    first_time<<<2, 32>>>(dfirst);  // same stream: starts after timers has finished
    CHECK_KERNEL();
    static int ok[N], work[N];
    unsigned long long last = 0, first = 0;
    CHECK(cudaMemcpy(ok, dok, sizeof ok, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(work, dwork, sizeof work, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&last, dlast, sizeof last, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&first, dfirst, sizeof first, cudaMemcpyDeviceToHost));
    for (int k = 0; k < N; ++k) {
        t.eq("monotonic flags (clock64 c1>c0, c2>c1, globaltimer g1>=g0, g2>=g1)", k, 15, ok[k]);
        int acc = hin[k];
        for (int j = 0; j < 100; ++j) acc = (int)((unsigned)acc * 1103515245u + 12345u);
        t.eq("work", k, acc, work[k]);
    }
    t.check(last > 0, "globaltimer read 0");
    t.check(first >= last, "second kernel's globaltimer %llu is before the first kernel's %llu", first, last);
    return t.finish();
}
