// 023_device_functions: __device__ functions (inlined, __forceinline__ and __noinline__) taking values,
// references and structs by value and by const reference, returning structs, out-parameters, default
// arguments, overloads, a 10-argument __noinline__ call and a chain of non-inlined calls.
#include "conformance.h"

constexpr int N = 256;
constexpr int K = 10;

struct Vec3 {
    float x, y, z;
};

__device__ __noinline__ Vec3 cross(const Vec3& a, const Vec3& b) {
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
__device__ __noinline__ float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __forceinline__ int clampi(int v, int lo = 0, int hi = 255) { return v < lo ? lo : (v > hi ? hi : v); }
__device__ __noinline__ void divmod(int a, int b, int& q, int& r) {
    q = a / b;
    r = a % b;
}
__device__ __noinline__ long long many_args(int a, long long b, float c, double d, char e, short f, unsigned g, int h,
                                            int i, int j) {
    return a + b + (long long)(c * 2.0f) + (long long)(d * 4.0) + e + f + g + h * 2 + i * 3 + j * 5;
}
__device__ int over(int x) { return x + 1; }
__device__ double over(double x) { return x * 2.0; }
__device__ __noinline__ int chain1(int x) { return x ^ 0x1234; }
__device__ __noinline__ int chain2(int x) { return chain1(x) + 7; }
__device__ __noinline__ int chain3(int x) { return chain2(x) * 3 - chain1(x); }

__global__ void functions(const int* in, long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int v = in[i];
    Vec3 a{(float)(v % 10), (float)(v % 7), (float)(v % 5)};
    Vec3 b{(float)(i % 9), 2.0f, (float)(-(i % 4))};
    Vec3 c = cross(a, b);
    long long* o = out + i * K;
    o[0] = (long long)c.x;
    o[1] = (long long)c.y;
    o[2] = (long long)c.z;
    o[3] = (long long)dot(a, c);  // always 0: c is orthogonal to a
    o[4] = clampi(v) + clampi(v, -10) * 1000 + clampi(v, -5, 5) * 1000000;
    int q, r;
    divmod(v, (i % 13) - 6 == 0 ? 3 : (i % 13) - 6, q, r);
    o[5] = q * 100 + r;
    o[6] = many_args(v, 1LL << 40, 1.5f, 2.25, (char)(i & 0x7f), (short)-i, 7u, 1, 2, 3);
    o[7] = over(v);
    o[8] = (long long)over((double)v);
    o[9] = chain3(v);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(23);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-300, 300);
    int* din;
    long long* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(long long) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    functions<<<N / 64, 64>>>(din, dout);
    CHECK_KERNEL();
    static long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"cross.x", "cross.y", "cross.z", "dot", "clamp", "divmod", "many_args", "over(int)",
                            "over(double)", "chain"};
    for (int i = 0; i < N; ++i) {
        long long v = hin[i];
        long long ax = v % 10, ay = v % 7, az = v % 5, bx = i % 9, by = 2, bz = -(i % 4);
        long long cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
        auto cl = [](long long x, long long lo, long long hi) { return x < lo ? lo : (x > hi ? hi : x); };
        int d = (i % 13) - 6 == 0 ? 3 : (i % 13) - 6;
        long long q = v / d, rr = v % d;
        long long c1 = v ^ 0x1234;
        long long e[K] = {cx, cy, cz, ax * cx + ay * cy + az * cz,
                          cl(v, 0, 255) + cl(v, -10, 255) * 1000 + cl(v, -5, 5) * 1000000, q * 100 + rr,
                          v + (1LL << 40) + 3 + 9 + (i & 0x7f) - i + 7 + 2 + 6 + 15, v + 1, v * 2, (c1 + 7) * 3 - c1};
        for (int k = 0; k < K; ++k) t.eq(names[k], i, e[k], r[i * K + k]);
    }
    return t.finish();
}
