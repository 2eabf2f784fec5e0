// 041_syncwarp_masks: __syncwarp as the barrier for warp-level shared-memory communication: a full-warp
// tree reduction with __syncwarp() between steps, divergent half-warps exchanging data with
// __syncwarp(0x0000ffff) / __syncwarp(0xffff0000), and every fourth lane with __syncwarp(0x11111111).
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 4;

__global__ void syncwarp_kernel(const int* in, int* out) {
    __shared__ int buf[BLOCK];
    __shared__ int buf2[BLOCK];
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    int lane = tid % 32, base = tid - lane;
    int v = in[gid];
    int* o = out + gid * K;
    // full-warp tree reduction in shared memory
    buf[tid] = v;
    __syncwarp();
    for (int s = 16; s > 0; s >>= 1) {
        if (lane < s) buf[tid] += buf[tid + s];
        __syncwarp();
    }
    o[0] = buf[base];
    // divergent halves, each with its own mask
    if (lane < 16) {
        buf2[tid] = v * 2;
        __syncwarp(0x0000ffffu);
        o[1] = buf2[base + 15 - lane];
    } else {
        buf2[tid] = v * 3;
        __syncwarp(0xffff0000u);
        o[1] = buf2[base + 16 + (31 - lane)];
    }
    __syncwarp();  // everyone has read buf2 before it is written again
    // every fourth lane
    o[2] = 0;
    if (lane % 4 == 0) {
        buf2[tid] = v - lane;
        __syncwarp(0x11111111u);
        o[2] = buf2[base + (lane + 4) % 32];
    }
    // all lanes again: a rotate through shared memory with a plain __syncwarp
    __syncwarp();
    buf[tid] = v ^ lane;
    __syncwarp();
    o[3] = buf[base + (lane + 31) % 32];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(41);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    syncwarp_kernel<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[K] = {"tree-sum", "halves", "quarter-lanes", "rotate"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        int sum = 0;
        for (int l = 0; l < 32; ++l) sum += v[l];
        for (int l = 0; l < 32; ++l) {
            int e[K] = {sum, l < 16 ? v[15 - l] * 2 : v[16 + (31 - l)] * 3,
                        l % 4 == 0 ? v[(l + 4) % 32] - (l + 4) % 32 : 0, v[(l + 31) % 32] ^ ((l + 31) % 32)};
            int gid = w * 32 + l;
            for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        }
    }
    return t.finish();
}
