// 068_divergence_reconvergence: nested data-dependent branches, loops with per-lane trip counts,
// a divergent call to a __noinline__ function and a divergent early 'continue', each followed by
// full-warp __ballot_sync/__shfl_sync that need every lane back (reconvergence), on lockstep and
// independent-thread-scheduling warp models alike.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 6;
constexpr unsigned FULL = 0xffffffffu;

__device__ __noinline__ int collatz_len(int n) {
    int s = 0;
    while (n != 1 && s < 60) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        ++s;
    }
    return s;
}

__global__ void diverge(const int* in, int* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    int* o = out + gid * K;
    // nested if/else, three levels
    int path;
    if (v & 1) {
        if (v & 2) path = (v & 4) ? 7 : 6;
        else path = (v & 8) ? 5 : 4;
    } else {
        if (lane < 10) path = 3;
        else if (lane < 20) path = (v & 16) ? 2 : 1;
        else path = 0;
    }
    o[0] = __ballot_sync(FULL, path >= 4);
    // per-lane trip counts
    int trips = (v >> 5) & 15, acc = 0;
    for (int k = 0; k < trips; ++k) acc += k * path;
    o[1] = __shfl_sync(FULL, acc, (lane + 1) % 32);
    // divergent call of a function with its own loop
    int len = 0;
    if (lane % 3 != 0) len = collatz_len((v & 255) + 1);
    o[2] = __shfl_sync(FULL, len, 31 - lane);
    // continue taken by some lanes in some iterations
    int sum = 0;
    for (int k = 0; k < 12; ++k) {
        if ((v + k) % 4 == 0) continue;
        sum += k;
        if (sum > 40 + lane) break;
    }
    o[3] = __ballot_sync(FULL, sum % 2 == 1);
    o[4] = sum;
    // a reduction over all lanes after all of the above
    int total = path + trips + len + sum;
    for (int m = 16; m >= 1; m /= 2) total += __shfl_xor_sync(FULL, total, m);
    o[5] = total;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(68);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = (int)(rng.next_u32() & 0x7fff);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    diverge<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int w = 0; w < N / 32; ++w) {
        int path[32], acc[32], len[32], sum[32];
        unsigned b0 = 0, b3 = 0;
        int total = 0;
        for (int l = 0; l < 32; ++l) {
            int v = hin[w * 32 + l];
            if (v & 1) path[l] = (v & 2) ? ((v & 4) ? 7 : 6) : ((v & 8) ? 5 : 4);
            else path[l] = l < 10 ? 3 : (l < 20 ? ((v & 16) ? 2 : 1) : 0);
            int trips = (v >> 5) & 15;
            acc[l] = path[l] * trips * (trips - 1) / 2;  // sum of k*path for k < trips
            len[l] = 0;
            if (l % 3 != 0) {
                int n = (v & 255) + 1;
                while (n != 1 && len[l] < 60) { n = (n & 1) ? 3 * n + 1 : n / 2; ++len[l]; }
            }
            sum[l] = 0;
            for (int k = 0; k < 12; ++k) {
                if ((v + k) % 4 == 0) continue;
                sum[l] += k;
                if (sum[l] > 40 + l) break;
            }
            if (path[l] >= 4) b0 |= 1u << l;
            if (sum[l] % 2 == 1) b3 |= 1u << l;
            total += path[l] + trips + len[l] + sum[l];
        }
        for (int l = 0; l < 32; ++l) {
            int gid = w * 32 + l;
            int e[K] = {(int)b0, acc[(l + 1) % 32], len[31 - l], (int)b3, sum[l], total};
            const char* names[K] = {"ballot(path)", "loop acc", "call", "ballot(continue)", "continue sum", "total"};
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
