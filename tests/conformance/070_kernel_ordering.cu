// 070_kernel_ordering: a pipeline of dependent kernels and async copies on the default stream with no
// synchronization in between (each kernel consumes the previous one's output), a kernel launched
// with an empty grid-stride range, and cudaDeviceSynchronize only at the end.
#include "conformance.h"

constexpr int N = 2000;
constexpr int STAGES = 6;

__global__ void stage(const int* in, int* out, int n, int s) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = in[(i + s) % n] * 2 - in[i] + s;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int h[N], back[N];
    for (int k = 0; k < N; ++k) h[k] = k % 17 - 8;
    int *a, *b;
    CHECK(cudaMalloc(&a, sizeof h));
    CHECK(cudaMalloc(&b, sizeof h));
    CHECK(cudaMemcpyAsync(a, h, sizeof h, cudaMemcpyHostToDevice, 0));
    for (int s = 0; s < STAGES; ++s) {
        stage<<<3 + s, 128>>>(s % 2 ? b : a, s % 2 ? a : b, N, s);
        CHECK(cudaGetLastError());
    }
    stage<<<2, 64>>>(a, b, 0, 99);  // n = 0: does nothing
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(back, STAGES % 2 ? b : a, sizeof back, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaDeviceSynchronize());
    static int x[N], y[N];
    for (int k = 0; k < N; ++k) x[k] = h[k];
    for (int s = 0; s < STAGES; ++s) {
        for (int i = 0; i < N; ++i) y[i] = x[(i + s) % N] * 2 - x[i] + s;
        for (int i = 0; i < N; ++i) x[i] = y[i];
    }
    for (int k = 0; k < N; ++k) t.eq("pipeline", k, x[k], back[k]);
    return t.finish();
}
