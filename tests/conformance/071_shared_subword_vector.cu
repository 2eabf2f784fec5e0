// 071_shared_subword_vector: shared memory accessed with 8-, 16-, 64-bit and vector (int2/int4/float4/
// double2) loads and stores, the same bytes viewed through different types after __syncthreads, and
// shared arrays of a struct type.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 8;

struct Rec {
    short id;
    char kind;
    float w;
};

__global__ void subword(const int* in, long long* out) {
    __shared__ __align__(16) unsigned char bytes[BLOCK * 8];
    __shared__ int4 vec[BLOCK];
    __shared__ double2 dv[BLOCK];
    __shared__ Rec recs[BLOCK];
    int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    int v = in[gid];
    // each thread owns 8 bytes: fill them as bytes, shorts and a long long, in three steps
    bytes[tid * 8 + 0] = (unsigned char)v;
    bytes[tid * 8 + 1] = (unsigned char)(v >> 8);
    ((unsigned short*)bytes)[tid * 4 + 1] = (unsigned short)(v >> 16);
    ((int*)bytes)[tid * 2 + 1] = -v;
    vec[tid] = make_int4(v, v + 1, v + 2, v + 3);
    dv[tid] = make_double2(v * 0.5, -v * 0.25);
    recs[tid].id = (short)tid;
    recs[tid].kind = (char)(tid % 3);
    recs[tid].w = (float)v * 0.125f;
    __syncthreads();
    int o = (tid + 5) % BLOCK;  // read another thread's data, viewed through other types
    long long* r = out + gid * K;
    r[0] = ((const long long*)bytes)[o];
    r[1] = ((const unsigned short*)bytes)[o * 4];  // bytes 0-1
    r[2] = (signed char)bytes[o * 8 + 5];
    int4 a = vec[o];
    r[3] = (long long)a.x + a.y * 10LL + a.z * 100LL + a.w * 1000LL;
    int2 b = ((const int2*)vec)[o * 2 + 1];  // the z, w half of vec[o]
    r[4] = (long long)b.x * 100000 + b.y;
    double2 d = dv[o];
    r[5] = (long long)(d.x * 4.0) * 100000 + (long long)(d.y * 4.0);
    float4 f = ((const float4*)dv)[o];  // the same 16 bytes reinterpreted
    r[6] = (long long)((unsigned long long)(unsigned)__float_as_int(f.x) ^
                       ((unsigned long long)(unsigned)__float_as_int(f.w) << 20));
    Rec q = recs[o];
    r[7] = q.id * 1000 + q.kind * 100 + (long long)(q.w * 8.0f);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(71);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int* din;
    long long* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(long long) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    subword<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"u64 view", "u16 view", "s8 view", "int4", "int2 half", "double2", "float4 view", "struct"};
    for (int gid = 0; gid < N; ++gid) {
        int b = gid / BLOCK, tid = gid % BLOCK, o = (tid + 5) % BLOCK;
        int v = hin[b * BLOCK + o];
        // little-endian layout of the owner's 8 bytes: v bits 0-7, 8-15, 16-31, then -v
        unsigned char by[8];
        unsigned lo = (unsigned)v, hi = (unsigned)(-v);
        std::memcpy(by, &lo, 4);
        std::memcpy(by + 4, &hi, 4);
        long long u64;
        std::memcpy(&u64, by, 8);
        unsigned short u16;
        std::memcpy(&u16, by, 2);
        double d0 = v * 0.5, d1 = -v * 0.25;
        float fx, fw;
        std::memcpy(&fx, &d0, 4);                         // bytes 0-3 of the double2
        std::memcpy(&fw, (const char*)&d1 + 4, 4);        // bytes 12-15
        int ix, iw;
        std::memcpy(&ix, &fx, 4);
        std::memcpy(&iw, &fw, 4);
        long long e[K] = {u64,
                          u16,
                          (signed char)by[5],
                          (long long)v + (v + 1) * 10LL + (v + 2) * 100LL + (v + 3) * 1000LL,
                          (long long)(v + 2) * 100000 + (v + 3),
                          (long long)(d0 * 4.0) * 100000 + (long long)(d1 * 4.0),
                          (long long)((unsigned long long)(unsigned)ix ^ ((unsigned long long)(unsigned)iw << 20)),
                          o * 1000 + (o % 3) * 100 + (long long)((float)v * 0.125f * 8.0f)};
        for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
    }
    return t.finish();
}
