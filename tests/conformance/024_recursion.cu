// 024_recursion: __noinline__ recursive device functions: factorial, doubly recursive fibonacci,
// recursive gcd, mutual recursion (is_even/is_odd) and a divide-and-conquer sum over a local array,
// with the stack limit raised by cudaDeviceSetLimit(cudaLimitStackSize).
#include "conformance.h"

constexpr int N = 64;
constexpr int K = 5;

__device__ __noinline__ unsigned long long fact(int n) { return n <= 1 ? 1ULL : (unsigned long long)n * fact(n - 1); }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }
__device__ __noinline__ bool is_odd(int n);
__device__ __noinline__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }
__device__ __noinline__ long long rsum(const int* p, int lo, int hi) {  // sum of p[lo..hi)
    if (hi - lo == 1) return p[lo] * (long long)(lo + 1);
    int mid = (lo + hi) / 2;
    return rsum(p, lo, mid) + rsum(p, mid, hi);
}

__global__ void recursive(unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int local[16];
    for (int k = 0; k < 16; ++k) local[k] = (i * 31 + k * 17) % 101 - 50;
    unsigned long long* o = out + i * K;
    o[0] = fact(i % 21);
    o[1] = (unsigned long long)fib(i % 16);
    o[2] = (unsigned long long)gcd(i * 12 + 36, (i % 7 + 1) * 18);
    o[3] = is_even(i % 50 + 3) ? 1 : 0;
    o[4] = (unsigned long long)rsum(local, 0, 1 + i % 16);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    size_t stack = 0;
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    t.check(stack >= 8192, "stack limit: expected >= 8192, got %zu", stack);
    unsigned long long* dout;
    CHECK(cudaMalloc(&dout, sizeof(unsigned long long) * N * K));
    recursive<<<2, N / 2>>>(dout);
    CHECK_KERNEL();
    static unsigned long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"fact", "fib", "gcd", "is_even", "rsum"};
    for (int i = 0; i < N; ++i) {
        // Reference: iterative versions of the same functions.
        unsigned long long f = 1;
        for (int k = 2; k <= i % 21; ++k) f *= (unsigned long long)k;
        int fa = 0, fb = 1;
        for (int k = 0; k < i % 16; ++k) { int nx = fa + fb; fa = fb; fb = nx; }
        int ga = i * 12 + 36, gb = (i % 7 + 1) * 18;
        while (gb != 0) { int tmp = ga % gb; ga = gb; gb = tmp; }
        long long s = 0;
        for (int k = 0; k < 1 + i % 16; ++k) s += (long long)((i * 31 + k * 17) % 101 - 50) * (k + 1);
        unsigned long long e[K] = {f, (unsigned long long)fa, (unsigned long long)ga, (unsigned long long)((i % 50 + 3) % 2 == 0),
                                   (unsigned long long)s};
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[i * K + k]);
    }
    return t.finish();
}
