// 065_templates: template kernels instantiated for int, short, unsigned long long, float and double,
// with a non-type parameter (unroll count), a template __device__ function with an explicit
// specialization, and a class template with a static device member function.
#include "conformance.h"

constexpr int N = 256;

template <class T> struct Ops {
    static __device__ T combine(T a, T b) { return a + b; }
};
template <> struct Ops<unsigned long long> {
    static __device__ unsigned long long combine(unsigned long long a, unsigned long long b) { return a ^ (b << 3); }
};

template <class T> __device__ T twice(T v) { return v + v; }
template <> __device__ float twice<float>(float v) { return v * 2.0f + 0.5f; }

template <class T, int DEGREE>
__global__ void poly(const T* in, T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T x = in[i];
    T acc = 0;
#pragma unroll
    for (int k = 0; k < DEGREE; ++k) acc = (T)(acc * x + (T)(k + 1));  // Horner
    out[i] = Ops<T>::combine(twice(acc), x);
}

template <class T, int DEGREE> static T host_ref(T x) {
    T acc = 0;
    for (int k = 0; k < DEGREE; ++k) acc = (T)(acc * x + (T)(k + 1));
    return acc;
}

template <class T, int DEGREE> static void run(conf::Checker& t, const char* name, T (*expect)(T, T)) {
    T h[N], r[N];
    for (int k = 0; k < N; ++k) h[k] = (T)(k % 7 - 3);
    T *din, *dout;
    CHECK(cudaMalloc(&din, sizeof h));
    CHECK(cudaMalloc(&dout, sizeof r));
    CHECK(cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice));
    poly<T, DEGREE><<<N / 64, 64>>>(din, dout, N);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int k = 0; k < N; ++k) t.eq(name, k, expect(host_ref<T, DEGREE>(h[k]), h[k]), r[k]);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    run<int, 5>(t, "int", [](int acc, int x) { return 2 * acc + x; });
    run<short, 3>(t, "short", [](short acc, short x) { return (short)(2 * acc + x); });
    run<unsigned long long, 6>(t, "ull", [](unsigned long long acc, unsigned long long x) { return (2 * acc) ^ (x << 3); });
    run<float, 4>(t, "float", [](float acc, float x) { return acc * 2.0f + 0.5f + x; });
    run<double, 7>(t, "double", [](double acc, double x) { return 2.0 * acc + x; });
    return t.finish();
}
