// 067_many_params: a kernel with 16 parameters of mixed types and alignments (char, bool, short,
// unsigned short, int, unsigned, long long, unsigned long long, float, double, pointers, an enum,
// an int2 and a small struct), each read by the device and combined into checked results.
#include "conformance.h"

enum class Mode : int { Add = 3, Mul = 5 };
struct Pair {
    short a;
    char b;
};

__global__ void many(char c, bool flag, short s, unsigned short us, int i, unsigned u, long long ll,
                     unsigned long long ull, float f, double d, const int* in, long long* out, Mode mode, int2 v2,
                     Pair p, signed char last) {
    int t = threadIdx.x;
    long long* o = out + t * 16;
    o[0] = c;
    o[1] = flag;
    o[2] = s;
    o[3] = us;
    o[4] = i;
    o[5] = u;
    o[6] = ll;
    o[7] = (long long)(ull >> 1);
    o[8] = (long long)(f * 16.0f);
    o[9] = (long long)(d * 1024.0);
    o[10] = in[t];
    o[11] = (int)mode;
    o[12] = (long long)v2.x * 100000 + v2.y;
    o[13] = p.a * 1000 + p.b;
    o[14] = last;
    o[15] = mode == Mode::Add ? (long long)c + s + i + ll + t : (long long)c * s * t;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    const int threads = 32;
    int hin[threads];
    for (int k = 0; k < threads; ++k) hin[k] = 1000 - k * 31;
    int* din;
    long long* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(long long) * 16 * threads));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    const char c = -100;
    const short s = -12345;
    const unsigned short us = 60000;
    const int i = -2000000000;
    const unsigned u = 4000000000u;
    const long long ll = -1234567890123456789LL;
    const unsigned long long ull = 0xfedcba9876543210ULL;
    const float f = -3.1875f;
    const double d = 12345.6789;
    const int2 v2 = make_int2(-77, 12345);
    const Pair p = {-321, 45};
    const signed char last = -1;
    long long r[16 * threads];
    for (int pass = 0; pass < 2; ++pass) {
        Mode mode = pass == 0 ? Mode::Add : Mode::Mul;
        many<<<1, threads>>>(c, pass == 0, s, us, i, u, ll, ull, f, d, din, dout, mode, v2, p, last);
        CHECK_KERNEL();
        CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
        for (int th = 0; th < threads; ++th) {
            long long e[16] = {c, pass == 0, s, us, i, u, ll, (long long)(ull >> 1), (long long)(f * 16.0f),
                               (long long)(d * 1024.0), hin[th], (int)mode, (long long)v2.x * 100000 + v2.y,
                               p.a * 1000 + p.b, last,
                               mode == Mode::Add ? (long long)c + s + i + ll + th : (long long)c * s * th};
            for (int k = 0; k < 16; ++k) t.eq(pass == 0 ? "params (Add)" : "params (Mul)", th * 16 + k, e[k], r[th * 16 + k]);
        }
    }
    return t.finish();
}
