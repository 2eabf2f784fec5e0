// 050_grid_stride_loop: grid-stride loops over a prime-sized array under several launch shapes
// (one warp, odd block counts and sizes, more threads than some loops need), an in-place update and a
// grid-stride reduction with one atomic per thread; every shape must give the same results.
#include "conformance.h"

constexpr int N = 5003;  // prime: no launch shape divides it

__global__ void axpy(int a, const int* x, int* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void sum_squares(const int* y, int n, unsigned long long* out) {
    unsigned long long s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s += (unsigned long long)((long long)y[i] * y[i]);
    atomicAdd(out, s);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int hx[N], hy[N], back[N];
    for (int k = 0; k < N; ++k) {
        hx[k] = k % 113 - 56;
        hy[k] = (k * 7) % 59;
    }
    int *dx, *dy;
    unsigned long long* dsum;
    CHECK(cudaMalloc(&dx, sizeof hx));
    CHECK(cudaMalloc(&dy, sizeof hy));
    CHECK(cudaMalloc(&dsum, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    const int shapes[][2] = {{1, 32}, {7, 96}, {3, 1000}, {12, 256}};
    for (int s = 0; s < 4; ++s) {
        CHECK(cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(dsum, 0, sizeof(unsigned long long)));
        int a = s + 2;
        axpy<<<shapes[s][0], shapes[s][1]>>>(a, dx, dy, N);
        CHECK_KERNEL();
        sum_squares<<<shapes[s][0], shapes[s][1]>>>(dy, N, dsum);
        CHECK_KERNEL();
        unsigned long long sum = 0, esum = 0;
        CHECK(cudaMemcpy(back, dy, sizeof back, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
        char label[48];
        std::snprintf(label, sizeof label, "axpy <<<%d,%d>>>", shapes[s][0], shapes[s][1]);
        for (int k = 0; k < N; ++k) {
            int e = a * hx[k] + hy[k];
            t.eq(label, k, e, back[k]);
            esum += (unsigned long long)((long long)e * e);
        }
        std::snprintf(label, sizeof label, "sum <<<%d,%d>>>", shapes[s][0], shapes[s][1]);
        t.eq(label, 0, esum, sum);
    }
    return t.finish();
}
