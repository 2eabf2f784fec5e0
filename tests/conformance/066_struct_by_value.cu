// 066_struct_by_value: structs passed by value as kernel arguments: mixed-size fields with padding
// (char, double, short, int, char[3], long long, float, bool), a nested struct with an array and a
// float2; the device reports each field and its sizeof/offsetof, which must match the host layout.
#include "conformance.h"
#include <cstddef>

struct Mixed {
    char c;
    double d;
    short s;
    int i;
    char tag[3];
    long long ll;
    float f;
    bool flag;
};
struct Nested {
    Mixed m;
    int arr[5];
    float2 v;
    unsigned char last;
};

__global__ void fields(Mixed m, int scale, Nested n, long long* out) {
    int t = threadIdx.x;
    long long* o = out + t * 20;
    o[0] = m.c;
    o[1] = (long long)(m.d * 4.0);
    o[2] = m.s;
    o[3] = m.i;
    o[4] = m.tag[0] * 10000 + m.tag[1] * 100 + m.tag[2];
    o[5] = m.ll;
    o[6] = (long long)(m.f * 8.0f);
    o[7] = m.flag ? 1 : 0;
    o[8] = n.m.i * scale + t;
    o[9] = n.arr[t % 5];
    o[10] = (long long)(n.v.x * 2.0f) * 1000 + (long long)(n.v.y * 2.0f);
    o[11] = n.last;
    o[12] = sizeof(Mixed);
    o[13] = sizeof(Nested);
    o[14] = offsetof(Mixed, d) * 10000 + offsetof(Mixed, s) * 100 + offsetof(Mixed, i);
    o[15] = offsetof(Mixed, tag) * 10000 + offsetof(Mixed, ll) * 100 + offsetof(Mixed, f);
    o[16] = offsetof(Mixed, flag) * 10000 + offsetof(Nested, arr) * 100 + offsetof(Nested, v);
    o[17] = offsetof(Nested, last);
    o[18] = n.m.c + n.m.s;
    o[19] = (long long)(n.m.d * 4.0) + n.m.ll;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    Mixed m;
    std::memset(&m, 0, sizeof m);
    m.c = -5;
    m.d = 1234.75;
    m.s = -32000;
    m.i = 123456789;
    m.tag[0] = 'a';
    m.tag[1] = 'b';
    m.tag[2] = 'c';
    m.ll = -0x123456789abcLL;
    m.f = -2.625f;
    m.flag = true;
    Nested n;
    std::memset(&n, 0, sizeof n);
    n.m = m;
    n.m.c = 9;
    n.m.i = 77;
    n.m.d = -0.25;
    for (int k = 0; k < 5; ++k) n.arr[k] = k * k - 10;
    n.v = make_float2(1.5f, -3.0f);
    n.last = 200;
    const int threads = 8;
    long long* dout;
    CHECK(cudaMalloc(&dout, sizeof(long long) * 20 * threads));
    fields<<<1, threads>>>(m, 3, n, dout);
    CHECK_KERNEL();
    long long r[20 * threads];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int th = 0; th < threads; ++th) {
        const long long* o = r + th * 20;
        long long e[20] = {m.c,
                           (long long)(m.d * 4.0),
                           m.s,
                           m.i,
                           m.tag[0] * 10000 + m.tag[1] * 100 + m.tag[2],
                           m.ll,
                           (long long)(m.f * 8.0f),
                           1,
                           77 * 3 + th,
                           n.arr[th % 5],
                           (long long)(n.v.x * 2.0f) * 1000 + (long long)(n.v.y * 2.0f),
                           200,
                           (long long)sizeof(Mixed),
                           (long long)sizeof(Nested),
                           (long long)(offsetof(Mixed, d) * 10000 + offsetof(Mixed, s) * 100 + offsetof(Mixed, i)),
                           (long long)(offsetof(Mixed, tag) * 10000 + offsetof(Mixed, ll) * 100 + offsetof(Mixed, f)),
                           (long long)(offsetof(Mixed, flag) * 10000 + offsetof(Nested, arr) * 100 + offsetof(Nested, v)),
                           (long long)offsetof(Nested, last),
                           9 + m.s,
                           (long long)(-0.25 * 4.0) + m.ll};
        const char* names[20] = {"c", "d", "s", "i", "tag", "ll", "f", "flag", "nested.i", "arr", "float2", "last",
                                 "sizeof(Mixed)", "sizeof(Nested)", "offsets1", "offsets2", "offsets3",
                                 "offset(last)", "nested c+s", "nested d+ll"};
        for (int k = 0; k < 20; ++k) t.eq(names[k], th * 20 + k, e[k], o[k]);
    }
    return t.finish();
}
