// 027_device_assert: assert() in device code (in a kernel, in a __noinline__ function, in a loop and
// under divergence) whose conditions all hold, so the kernel completes normally and its results are
// checked; a passing assert must not disturb execution.
#undef NDEBUG
#include <cassert>
#include "conformance.h"

constexpr int N = 256;

__device__ __noinline__ int checked_div(int a, int b) {
    assert(b != 0);
    int q = a / b;
    assert(q * b + a % b == a);
    return q;
}

__global__ void asserting(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < N);
    int v = in[i];
    assert(v >= 1 && v <= 1000);
    int s = 0;
    for (int k = 0; k < v % 17; ++k) {
        s += k;
        assert(s >= 0);
    }
    if (i % 2) {
        assert(i & 1);
        s += checked_div(v, (i % 5) + 1);
    } else {
        assert((i & 1) == 0);
        s -= checked_div(1000, v);
    }
    out[i] = s;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(27);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(1, 1000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    asserting<<<N / 64, 64>>>(din, dout);
    CHECK_KERNEL();
    static int r[N];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
        int v = hin[i], m = v % 17;
        int s = m * (m - 1) / 2;
        s += (i % 2) ? v / ((i % 5) + 1) : -(1000 / v);
        t.eq("result", i, s, r[i]);
    }
    return t.finish();
}
