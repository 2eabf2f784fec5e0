// 045_streams_events: two streams with cudaMemcpyAsync (pinned host memory), kernels and async
// copies back; an event recorded in stream 1 that stream 2 waits on (cudaStreamWaitEvent) before using
// stream 1's result; cudaEventRecord/Synchronize/Query/ElapsedTime (>= 0) and cudaStreamSynchronize/Query.
#include "conformance.h"

constexpr int N = 1024;

__global__ void scale(const int* in, int* out, int factor, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i] * factor + 1;
}
__global__ void combine(const int* a, const int* b, int* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = a[(i + 1) % n] - b[i];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t start, stop, produced;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    int *h1, *h2, *hout1, *hout2;
    CHECK(cudaMallocHost(&h1, sizeof(int) * N));
    CHECK(cudaMallocHost(&h2, sizeof(int) * N));
    CHECK(cudaMallocHost(&hout1, sizeof(int) * N));
    CHECK(cudaMallocHost(&hout2, sizeof(int) * N));
    for (int k = 0; k < N; ++k) {
        h1[k] = k * 3 - 500;
        h2[k] = 1000 - k;
    }
    int *d1, *d2, *o1, *o2;
    CHECK(cudaMalloc(&d1, sizeof(int) * N));
    CHECK(cudaMalloc(&d2, sizeof(int) * N));
    CHECK(cudaMalloc(&o1, sizeof(int) * N));
    CHECK(cudaMalloc(&o2, sizeof(int) * N));

    CHECK(cudaEventRecord(start, s1));
    CHECK(cudaMemcpyAsync(d1, h1, sizeof(int) * N, cudaMemcpyHostToDevice, s1));
    scale<<<4, 128, 0, s1>>>(d1, o1, 3, N);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(produced, s1));
    CHECK(cudaMemcpyAsync(hout1, o1, sizeof(int) * N, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaEventRecord(stop, s1));

    CHECK(cudaMemcpyAsync(d2, h2, sizeof(int) * N, cudaMemcpyHostToDevice, s2));
    scale<<<2, 256, 0, s2>>>(d2, d2, -2, N);  // in place
    CHECK(cudaGetLastError());
    CHECK(cudaStreamWaitEvent(s2, produced, 0));  // o1 is complete before combine reads it
    combine<<<3, 64, 0, s2>>>(o1, d2, o2, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(hout2, o2, sizeof(int) * N, cudaMemcpyDeviceToHost, s2));

    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaStreamSynchronize(s1));
    t.eq("cudaEventQuery(stop)", 0, (int)cudaSuccess, (int)cudaEventQuery(stop));
    t.eq("cudaStreamQuery(s1)", 0, (int)cudaSuccess, (int)cudaStreamQuery(s1));
    t.eq("cudaStreamQuery(s2)", 0, (int)cudaSuccess, (int)cudaStreamQuery(s2));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    t.check(ms >= 0.0f, "elapsed time %f ms is negative", ms);

    for (int k = 0; k < N; ++k) {
        int e1 = h1[k] * 3 + 1;
        t.eq("stream1", k, e1, hout1[k]);
        int a_next = h1[(k + 1) % N] * 3 + 1;
        int b = h2[k] * -2 + 1;
        t.eq("stream2", k, a_next - b, hout2[k]);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(produced));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFreeHost(h1));
    CHECK(cudaFreeHost(h2));
    CHECK(cudaFreeHost(hout1));
    CHECK(cudaFreeHost(hout2));
    return t.finish();
}
