// 016_ldst_vector_ldg: vector loads/stores of int2/int4/float2/float4/double2/longlong2/uchar4/short2
// (ld.v2/ld.v4), __ldg read-only loads of scalars and vectors, and const __restrict__ pointers.
#include "conformance.h"

constexpr int N = 256;

__global__ void vec(const int4* __restrict__ i4, const float4* __restrict__ f4, const double2* d2, const int2* i2,
                    const uchar4* u4, const short2* s2, const longlong2* l2, int4* oi4, float4* of4, double2* od2,
                    int2* oi2, uchar4* ou4, short2* os2, longlong2* ol2, float* oldg) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= N) return;
    int4 a = i4[t];
    oi4[t] = make_int4(a.w, a.z + 1, a.y * 2, a.x ^ 0x5a5a);
    float4 f = f4[t];
    of4[t] = make_float4(f.x + f.y, f.y - f.z, f.z * 2.0f, f.w);
    double2 d = d2[t];
    od2[t] = make_double2(d.y, d.x + d.y);
    int2 b = i2[t];
    oi2[t] = make_int2(b.y, b.x);
    uchar4 c = u4[t];
    ou4[t] = make_uchar4(c.w, c.z, c.y, (unsigned char)(c.x + 1));
    short2 s = s2[t];
    os2[t] = make_short2((short)(s.x + s.y), (short)(s.x - s.y));
    longlong2 l = l2[t];
    ol2[t] = make_longlong2(l.y, l.x + l.y);
    // __ldg: read-only path, scalar and vector, at another thread's element
    int o = (t * 7) % N;
    float4 g = __ldg(&f4[o]);
    int4 h = __ldg(&i4[o]);
    double2 dd = __ldg(&d2[o]);
    int e = __ldg(&i2[o].y);
    oldg[t] = g.x + g.w + (float)(h.y & 0xff) + (float)dd.x + (float)(e & 0xf);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(16);
    static int4 hi4[N];
    static float4 hf4[N];
    static double2 hd2[N];
    static int2 hi2[N];
    static uchar4 hu4[N];
    static short2 hs2[N];
    static longlong2 hl2[N];
    for (int k = 0; k < N; ++k) {
        hi4[k] = make_int4(rng.next_int(-100000, 100000), rng.next_int(-100000, 100000), rng.next_int(-100000, 100000),
                           (int)rng.next_u32());
        // small multiples of 1/4: every sum below is exact
        hf4[k] = make_float4(rng.next_int(-4000, 4000) * 0.25f, rng.next_int(-4000, 4000) * 0.25f,
                             rng.next_int(-4000, 4000) * 0.25f, rng.next_int(-4000, 4000) * 0.25f);
        hd2[k] = make_double2(rng.next_int(-4000, 4000) * 0.5, rng.next_int(-4000, 4000) * 0.5);
        hi2[k] = make_int2((int)rng.next_u32(), (int)rng.next_u32());
        hu4[k] = make_uchar4((unsigned char)rng.next_u32(), (unsigned char)rng.next_u32(),
                             (unsigned char)rng.next_u32(), (unsigned char)rng.next_u32());
        hs2[k] = make_short2((short)rng.next_int(-10000, 10000), (short)rng.next_int(-10000, 10000));
        hl2[k] = make_longlong2((long long)(rng.next_u64() >> 2), (long long)(rng.next_u64() >> 2));
    }
    int4 *di4, *doi4;
    float4 *df4, *dof4;
    double2 *dd2, *dod2;
    int2 *di2, *doi2;
    uchar4 *du4, *dou4;
    short2 *ds2, *dos2;
    longlong2 *dl2, *dol2;
    float* dldg;
    CHECK(cudaMalloc(&di4, sizeof hi4));
    CHECK(cudaMalloc(&df4, sizeof hf4));
    CHECK(cudaMalloc(&dd2, sizeof hd2));
    CHECK(cudaMalloc(&di2, sizeof hi2));
    CHECK(cudaMalloc(&du4, sizeof hu4));
    CHECK(cudaMalloc(&ds2, sizeof hs2));
    CHECK(cudaMalloc(&dl2, sizeof hl2));
    CHECK(cudaMalloc(&doi4, sizeof hi4));
    CHECK(cudaMalloc(&dof4, sizeof hf4));
    CHECK(cudaMalloc(&dod2, sizeof hd2));
    CHECK(cudaMalloc(&doi2, sizeof hi2));
    CHECK(cudaMalloc(&dou4, sizeof hu4));
    CHECK(cudaMalloc(&dos2, sizeof hs2));
    CHECK(cudaMalloc(&dol2, sizeof hl2));
    CHECK(cudaMalloc(&dldg, sizeof(float) * N));
    CHECK(cudaMemcpy(di4, hi4, sizeof hi4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df4, hf4, sizeof hf4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd2, hd2, sizeof hd2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(di2, hi2, sizeof hi2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(du4, hu4, sizeof hu4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds2, hs2, sizeof hs2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dl2, hl2, sizeof hl2, cudaMemcpyHostToDevice));
    vec<<<N / 64, 64>>>(di4, df4, dd2, di2, du4, ds2, dl2, doi4, dof4, dod2, doi2, dou4, dos2, dol2, dldg);
    CHECK_KERNEL();
    static int4 ri4[N];
    static float4 rf4[N];
    static double2 rd2[N];
    static int2 ri2[N];
    static uchar4 ru4[N];
    static short2 rs2[N];
    static longlong2 rl2[N];
    static float rldg[N];
    CHECK(cudaMemcpy(ri4, doi4, sizeof ri4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rf4, dof4, sizeof rf4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rd2, dod2, sizeof rd2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ri2, doi2, sizeof ri2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ru4, dou4, sizeof ru4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rs2, dos2, sizeof rs2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rl2, dol2, sizeof rl2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rldg, dldg, sizeof rldg, cudaMemcpyDeviceToHost));

    for (int k = 0; k < N; ++k) {
        int4 a = hi4[k];
        t.eq("int4.x", k, a.w, ri4[k].x);
        t.eq("int4.y", k, a.z + 1, ri4[k].y);
        t.eq("int4.z", k, a.y * 2, ri4[k].z);
        t.eq("int4.w", k, a.x ^ 0x5a5a, ri4[k].w);
        float4 f = hf4[k];
        t.eq("float4.x", k, f.x + f.y, rf4[k].x);
        t.eq("float4.y", k, f.y - f.z, rf4[k].y);
        t.eq("float4.z", k, f.z * 2.0f, rf4[k].z);
        t.eq("float4.w", k, f.w, rf4[k].w);
        t.eq("double2.x", k, hd2[k].y, rd2[k].x);
        t.eq("double2.y", k, hd2[k].x + hd2[k].y, rd2[k].y);
        t.eq("int2.x", k, hi2[k].y, ri2[k].x);
        t.eq("int2.y", k, hi2[k].x, ri2[k].y);
        uchar4 c = hu4[k];
        t.eq("uchar4.x", k, c.w, ru4[k].x);
        t.eq("uchar4.y", k, c.z, ru4[k].y);
        t.eq("uchar4.z", k, c.y, ru4[k].z);
        t.eq("uchar4.w", k, (unsigned char)((c.x + 1) & 0xff), ru4[k].w);
        t.eq("short2.x", k, (short)(hs2[k].x + hs2[k].y), rs2[k].x);
        t.eq("short2.y", k, (short)(hs2[k].x - hs2[k].y), rs2[k].y);
        t.eq("longlong2.x", k, hl2[k].y, rl2[k].x);
        t.eq("longlong2.y", k, hl2[k].x + hl2[k].y, rl2[k].y);
        int o = (k * 7) % N;
        float e = hf4[o].x + hf4[o].w + (float)(hi4[o].y & 0xff) + (float)hd2[o].x + (float)(hi2[o].y & 0xf);
        t.eq("ldg", k, e, rldg[k]);
    }
    return t.finish();
}
