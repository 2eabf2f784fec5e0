// 015_ldst_scalar_types: loads and stores of char/unsigned char/short/unsigned short/int/long long/
// float/double in global memory (sign and zero extension on load, truncation on store, strided and
// byte-offset addressing, read-modify-write through pointers of each width).
#include "conformance.h"

constexpr int N = 256;

struct Buffers {
    signed char* c;
    unsigned char* uc;
    short* s;
    unsigned short* us;
    int* i;
    long long* ll;
    float* f;
    double* d;
};

__global__ void ldst(Buffers in, Buffers out, long long* widened) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= N) return;
    int r = N - 1 - t;  // read reversed: every store goes to a different address than its load
    // widen every type to 64 bits (sign or zero extension)
    long long* w = widened + t * 8;
    w[0] = in.c[r];
    w[1] = in.uc[r];
    w[2] = in.s[r];
    w[3] = in.us[r];
    w[4] = in.i[r];
    w[5] = in.ll[r];
    w[6] = (long long)(in.f[r] * 4.0f);
    w[7] = (long long)(in.d[r] * 8.0);
    // stores that truncate, into each width
    long long v = in.ll[r];
    out.c[t] = (signed char)v;
    out.uc[t] = (unsigned char)(v >> 8);
    out.s[t] = (short)(v >> 16);
    out.us[t] = (unsigned short)(v >> 24);
    out.i[t] = (int)(v >> 32);
    out.ll[t] = v ^ in.i[t];
    out.f[t] = (float)in.s[t] + 0.25f;
    out.d[t] = (double)in.i[t] * 0.5;
    // read-modify-write at a byte offset through a char pointer into the int buffer: each thread owns
    // the 4 bytes of its element, touches byte 1 and byte 3
    unsigned char* bytes = (unsigned char*)(out.i + t);
    bytes[1] ^= 0xff;
    bytes[3] += 1;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(15);
    static signed char hc[N];
    static unsigned char huc[N];
    static short hs[N];
    static unsigned short hus[N];
    static int hi[N];
    static long long hll[N];
    static float hf[N];
    static double hd[N];
    for (int k = 0; k < N; ++k) {
        unsigned long long r = rng.next_u64();
        hc[k] = (signed char)(r & 0xff);
        huc[k] = (unsigned char)(r >> 8);
        hs[k] = (short)(r >> 16);
        hus[k] = (unsigned short)(r >> 32);
        hi[k] = (int)(r >> 24);
        hll[k] = (long long)rng.next_u64();
        hf[k] = (float)rng.next_int(-100000, 100000) * 0.25f;
        hd[k] = (double)rng.next_int(-1000000, 1000000) * 0.125;
    }
    hc[0] = -128; huc[0] = 255; hs[0] = -32768; hus[0] = 65535; hi[0] = (int)0x80000000;
    hll[0] = (long long)0x8000000000000000ULL;
    Buffers din{}, dout{};
    long long* dw;
    CHECK(cudaMalloc(&din.c, N));
    CHECK(cudaMalloc(&din.uc, N));
    CHECK(cudaMalloc(&din.s, N * sizeof(short)));
    CHECK(cudaMalloc(&din.us, N * sizeof(unsigned short)));
    CHECK(cudaMalloc(&din.i, N * sizeof(int)));
    CHECK(cudaMalloc(&din.ll, N * sizeof(long long)));
    CHECK(cudaMalloc(&din.f, N * sizeof(float)));
    CHECK(cudaMalloc(&din.d, N * sizeof(double)));
    CHECK(cudaMalloc(&dout.c, N));
    CHECK(cudaMalloc(&dout.uc, N));
    CHECK(cudaMalloc(&dout.s, N * sizeof(short)));
    CHECK(cudaMalloc(&dout.us, N * sizeof(unsigned short)));
    CHECK(cudaMalloc(&dout.i, N * sizeof(int)));
    CHECK(cudaMalloc(&dout.ll, N * sizeof(long long)));
    CHECK(cudaMalloc(&dout.f, N * sizeof(float)));
    CHECK(cudaMalloc(&dout.d, N * sizeof(double)));
    CHECK(cudaMalloc(&dw, N * 8 * sizeof(long long)));
    CHECK(cudaMemcpy(din.c, hc, sizeof hc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.uc, huc, sizeof huc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.s, hs, sizeof hs, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.us, hus, sizeof hus, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.i, hi, sizeof hi, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.ll, hll, sizeof hll, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.f, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din.d, hd, sizeof hd, cudaMemcpyHostToDevice));
    ldst<<<N / 64, 64>>>(din, dout, dw);
    CHECK_KERNEL();
    static signed char oc[N];
    static unsigned char ouc[N];
    static short os[N];
    static unsigned short ous[N];
    static int oi[N];
    static long long oll[N], ow[N * 8];
    static float of[N];
    static double od[N];
    CHECK(cudaMemcpy(oc, dout.c, sizeof oc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ouc, dout.uc, sizeof ouc, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(os, dout.s, sizeof os, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ous, dout.us, sizeof ous, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oi, dout.i, sizeof oi, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oll, dout.ll, sizeof oll, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(of, dout.f, sizeof of, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(od, dout.d, sizeof od, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ow, dw, sizeof ow, cudaMemcpyDeviceToHost));

    const char* wn[8] = {"ld.s8", "ld.u8", "ld.s16", "ld.u16", "ld.s32", "ld.s64", "ld.f32", "ld.f64"};
    for (int k = 0; k < N; ++k) {
        int r = N - 1 - k;
        long long ew[8] = {hc[r], huc[r], hs[r], hus[r], hi[r], hll[r], (long long)(hf[r] * 4.0f),
                           (long long)(hd[r] * 8.0)};
        for (int j = 0; j < 8; ++j) t.eq(wn[j], k, ew[j], ow[k * 8 + j]);
        unsigned long long v = (unsigned long long)hll[r];
        t.eq("st.s8", k, (signed char)(v & 0xff), oc[k]);
        t.eq("st.u8", k, (unsigned char)((v >> 8) & 0xff), ouc[k]);
        t.eq("st.s16", k, (short)((v >> 16) & 0xffff), os[k]);
        t.eq("st.u16", k, (unsigned short)((v >> 24) & 0xffff), ous[k]);
        // int store, then byte 1 inverted and byte 3 incremented (little-endian bytes)
        unsigned ui = (unsigned)(v >> 32);
        unsigned b1 = ((ui >> 8) & 0xff) ^ 0xff, b3 = ((ui >> 24) + 1) & 0xff;
        unsigned expect_i = (ui & 0x00ff00ffu) | (b1 << 8) | (b3 << 24);
        t.eq("st.s32+bytes", k, (int)expect_i, oi[k]);
        t.eq("st.s64", k, (long long)(v ^ (unsigned long long)(long long)hi[k]), oll[k]);
        t.eq("st.f32", k, (float)hs[k] + 0.25f, of[k]);
        t.eq("st.f64", k, (double)hi[k] * 0.5, od[k]);
    }
    return t.finish();
}
