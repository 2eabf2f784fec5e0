// 036_shfl_sync: warp shuffles with the full mask: __shfl_sync (source lanes >= 32 wrap),
// __shfl_up_sync/__shfl_down_sync (out-of-range lanes keep their value), __shfl_xor_sync, butterfly
// reduction and shuffle scan, int/float/double/long long payloads, and sub-warp widths 16, 8 and 4.
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 16;
constexpr unsigned FULL = 0xffffffffu;

__global__ void shuffles(const int* in, long long* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    float fv = (float)v * 0.5f;
    double dv = (double)v * 0.25;
    long long lv = (long long)(((unsigned long long)(long long)v << 32) | (unsigned)(lane * 3));
    long long* o = out + (long long)gid * K;
    o[0] = __shfl_sync(FULL, v, (lane * 7 + 3) % 32);
    o[1] = __shfl_sync(FULL, v, lane + 37);  // wraps: lane (lane + 37) % 32
    o[2] = __shfl_up_sync(FULL, v, 3);
    o[3] = __shfl_down_sync(FULL, v, 5);
    o[4] = __shfl_xor_sync(FULL, v, 0x13);
    int s = v;
    for (int m = 16; m >= 1; m /= 2) s += __shfl_xor_sync(FULL, s, m);
    o[5] = s;
    int scan = v;
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(FULL, scan, d);
        if (lane >= d) scan += up;
    }
    o[6] = scan;
    o[7] = (long long)(__shfl_sync(FULL, dv, 31 - lane) * 4.0);
    o[8] = __shfl_down_sync(FULL, lv, 1);
    o[9] = __shfl_sync(FULL, v, 3, 16);
    o[10] = __shfl_up_sync(FULL, v, 2, 8);
    o[11] = __shfl_down_sync(FULL, v, 1, 4);
    o[12] = __shfl_xor_sync(FULL, v, 5, 16);
    o[13] = __shfl_sync(FULL, v, 11, 8);  // source lane 11 in a width-8 segment is lane 3 of the segment
    int seg = v;
    for (int m = 4; m >= 1; m /= 2) seg += __shfl_xor_sync(FULL, seg, m, 8);
    o[14] = seg;
    o[15] = (long long)(__shfl_sync(FULL, fv, lane ^ 1) * 2.0f);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(36);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int* din;
    long long* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(long long) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    shuffles<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static long long r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"idx", "idx>=32", "up3", "down5", "xor0x13", "butterfly", "scan", "double", "ll-down1",
                            "idx-w16", "up-w8", "down-w4", "xor-w16", "idx11-w8", "segsum-w8", "float"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;  // the warp's values by lane
        long long wsum = 0;
        for (int l = 0; l < 32; ++l) wsum += v[l];
        for (int l = 0; l < 32; ++l) {
            long long pre = 0, seg = 0;
            for (int k = 0; k <= l; ++k) pre += v[k];
            for (int k = l & ~7; k < (l & ~7) + 8; ++k) seg += v[k];
            auto lv = [&](int src) { return (long long)(((unsigned long long)(long long)v[src] << 32) | (unsigned)(src * 3)); };
            long long e[K] = {v[(l * 7 + 3) % 32],
                              v[(l + 37) % 32],
                              l >= 3 ? v[l - 3] : v[l],
                              l + 5 < 32 ? v[l + 5] : v[l],
                              v[l ^ 0x13],
                              wsum,
                              pre,
                              v[31 - l],
                              l + 1 < 32 ? lv(l + 1) : lv(l),
                              v[(l & ~15) + 3],
                              (l % 8) >= 2 ? v[l - 2] : v[l],
                              (l % 4) + 1 < 4 ? v[l + 1] : v[l],
                              v[l ^ 5],
                              v[(l & ~7) + 3],
                              seg,
                              v[l ^ 1]};
            int gid = w * 32 + l;
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[(long long)gid * K + k]);
        }
    }
    return t.finish();
}
