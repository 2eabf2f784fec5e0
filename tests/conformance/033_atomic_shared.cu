// 033_atomic_shared: atomics on __shared__ memory: atomicAdd (int, unsigned long long, float, double),
// atomicSub, atomicMin/Max, atomicInc, atomicAnd/Or/Xor, atomicExch and an atomicCAS loop, per block,
// with the old values of a +1 ticket forming a permutation of 0..blockDim-1 in every block.
#include "conformance.h"
#include <algorithm>
#include <vector>

constexpr int BLOCK = 256;
constexpr int BLOCKS = 3;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 12;

__global__ void shared_atomics(const int* v, long long* out, int* tickets) {
    __shared__ int s_ticket, s_sum, s_min, s_max, s_cas;
    __shared__ unsigned s_inc, s_and, s_or, s_xor;
    __shared__ unsigned long long s_ull;
    __shared__ float s_f;
    __shared__ double s_d;
    __shared__ int s_exch;
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    if (tid == 0) {
        s_ticket = 0; s_sum = 1000; s_min = 0x7fffffff; s_max = (int)0x80000000; s_cas = 0;
        s_inc = 0; s_and = 0xffffffffu; s_or = 0; s_xor = 0;
        s_ull = 0; s_f = 0.0f; s_d = 0.0; s_exch = -1;
    }
    __syncthreads();
    int x = v[gid];
    tickets[gid] = atomicAdd(&s_ticket, 1);
    atomicSub(&s_sum, x);
    atomicMin(&s_min, x);
    atomicMax(&s_max, x);
    atomicInc(&s_inc, 99u);
    atomicAnd(&s_and, ~(1u << (tid % 32)) | (tid < 128 ? 0u : 1u));
    atomicOr(&s_or, 1u << (x & 31));
    atomicXor(&s_xor, (unsigned)x);
    atomicAdd(&s_ull, (unsigned long long)x + (1ULL << 40));
    atomicAdd(&s_f, 0.25f * (float)(tid % 16));
    atomicAdd(&s_d, 0.5 * (double)x);
    atomicExch(&s_exch, tid);
    int old = *(volatile int*)&s_cas, assumed;  // CAS loop; the first guess is checked by the CAS
    do {
        assumed = old;
        old = atomicCAS(&s_cas, assumed, assumed + 1 + (x & 7));
    } while (old != assumed);
    __syncthreads();
    if (tid == 0) {
        long long* o = out + blockIdx.x * K;
        o[0] = s_ticket; o[1] = s_sum; o[2] = s_min; o[3] = s_max; o[4] = s_inc; o[5] = s_and;
        o[6] = s_or; o[7] = s_xor; o[8] = (long long)s_ull; o[9] = (long long)(s_f * 4.0f);
        o[10] = (long long)(s_d * 2.0); o[11] = s_cas;
    }
    if (tid == 1) out[BLOCKS * K + blockIdx.x] = s_exch;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(33);
    static int hv[N];
    for (int k = 0; k < N; ++k) hv[k] = rng.next_int(-50000, 50000);
    int *dv, *dtick;
    long long* dout;
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&dtick, sizeof(int) * N));
    CHECK(cudaMalloc(&dout, sizeof(long long) * (BLOCKS * K + BLOCKS)));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    shared_atomics<<<BLOCKS, BLOCK>>>(dv, dout, dtick);
    CHECK_KERNEL();
    static long long r[BLOCKS * K + BLOCKS];
    static int tick[N];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tick, dtick, sizeof tick, cudaMemcpyDeviceToHost));
    const char* names[K] = {"ticket", "sub", "min", "max", "inc", "and", "or", "xor", "add.u64", "add.f32", "add.f64", "cas"};
    for (int b = 0; b < BLOCKS; ++b) {
        long long sum = 1000, ull = 0, f4 = 0, d2 = 0, cas = 0;
        int mn = 0x7fffffff, mx = (int)0x80000000;
        unsigned inc = 0, a = 0xffffffffu, o = 0, x = 0;
        std::vector<int> seen(BLOCK, 0);
        for (int tid = 0; tid < BLOCK; ++tid) {
            int v = hv[b * BLOCK + tid];
            sum -= v;
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            inc = inc >= 99 ? 0 : inc + 1;
            a &= ~(1u << (tid % 32)) | (tid < 128 ? 0u : 1u);
            o |= 1u << (v & 31);
            x ^= (unsigned)v;
            ull += (long long)v + (1LL << 40);
            f4 += tid % 16;  // s_f * 4
            d2 += v;         // s_d * 2
            cas += 1 + (v & 7);
            int tk = tick[b * BLOCK + tid];
            if (tk >= 0 && tk < BLOCK) seen[tk]++;
        }
        long long e[K] = {BLOCK, sum, mn, mx, inc, a, o, x, ull, f4, d2, cas};
        for (int k = 0; k < K; ++k) t.eq(names[k], b, e[k], r[b * K + k]);
        long long ex = r[BLOCKS * K + b];
        t.check(ex >= 0 && ex < BLOCK, "exch[%d]: final value %lld is not a thread index", b, ex);
        for (int k = 0; k < BLOCK; ++k) t.eq("ticket olds: count of value", b * BLOCK + k, 1, seen[k]);
    }
    return t.finish();
}
