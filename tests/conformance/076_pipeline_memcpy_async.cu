// 076_pipeline_memcpy_async: asynchronous copies from global into shared memory, double- and
// triple-buffered: a per-thread cuda::pipeline (cuda::memcpy_async, producer/consumer stages), the
// __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior primitives, and a block-scoped
// cuda::pipeline with pipeline_shared_state where each thread consumes what other threads copied.
// On sm_80+ these are cp.async (and its mbarrier completion); before sm_80 libcu++ copies directly.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 4;
constexpr int TILE = BLOCK;      // one element per thread and tile (per-thread pipelines)
constexpr int TILES = 6;         // tiles per block
constexpr int STAGES = 3;        // buffers in flight
constexpr int N = BLOCKS * TILES * TILE;

// Per-thread pipeline: each thread copies its own element of tile k into stage k % STAGES and,
// STAGES-1 tiles later, reads it back. Output: a transform of every element plus a running sum.
__global__ void thread_pipeline(const int* in, int* out, long long* sums) {
    __shared__ int buf[STAGES][TILE];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const int t = threadIdx.x;
    const int* src = in + blockIdx.x * TILES * TILE;
    int* dst = out + blockIdx.x * TILES * TILE;
    long long acc = 0;
    int fetched = 0;
    for (int k = 0; k < TILES; ++k) {
        // Keep up to STAGES tiles in flight.
        for (; fetched < TILES && fetched < k + STAGES; ++fetched) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[fetched % STAGES][t], &src[fetched * TILE + t], sizeof(int), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        const int v = buf[k % STAGES][t];
        dst[k * TILE + t] = v * 3 - k;
        acc += v;
        pipe.consumer_release();
    }
    sums[blockIdx.x * BLOCK + t] = acc;
}

// The primitives of cuda_pipeline.h: 16-byte copies (int4) into two buffers, waiting with
// __pipeline_wait_prior(1) for all but the newest batch.
constexpr int VEC_TILES = 5;
__global__ void primitives(const int4* in, int4* out) {
    __shared__ int4 buf[2][BLOCK];
    const int t = threadIdx.x;
    const int4* src = in + blockIdx.x * VEC_TILES * BLOCK;
    int4* dst = out + blockIdx.x * VEC_TILES * BLOCK;
    __pipeline_memcpy_async(&buf[0][t], &src[t], sizeof(int4));
    __pipeline_commit();
    for (int k = 0; k < VEC_TILES; ++k) {
        if (k + 1 < VEC_TILES) {
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &src[(k + 1) * BLOCK + t], sizeof(int4));
        }
        __pipeline_commit();        // an empty batch at the end keeps the counting uniform
        __pipeline_wait_prior(1);   // batch k has landed
        int4 v = buf[k & 1][t];
        v.x += v.w;
        v.y ^= v.z;
        v.z -= k;
        v.w = v.x + v.y;
        dst[k * BLOCK + t] = v;
    }
}

// Block-scoped pipeline: all threads produce one tile together (each copies 2 elements), then every
// thread reads the tile reversed, i.e. elements copied by other threads. STAGES tiles in flight.
constexpr int BTILE = 2 * BLOCK;
constexpr int BTILES = 5;
#pragma nv_diag_suppress static_var_with_dynamic_init  // make_pipeline() initializes the shared state
__global__ void block_pipeline(const unsigned* in, unsigned* out) {
    __shared__ unsigned buf[STAGES][BTILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cooperative_groups::this_thread_block();
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
    const int t = threadIdx.x;
    const unsigned* src = in + blockIdx.x * BTILES * BTILE;
    unsigned* dst = out + blockIdx.x * BTILES * BTILE;
    int fetched = 0;
    for (int k = 0; k < BTILES; ++k) {
        for (; fetched < BTILES && fetched < k + STAGES; ++fetched) {
            pipe.producer_acquire();
            unsigned* b = buf[fetched % STAGES];
            cuda::memcpy_async(&b[t], &src[fetched * BTILE + t], sizeof(unsigned), pipe);
            cuda::memcpy_async(&b[t + BLOCK], &src[fetched * BTILE + t + BLOCK], sizeof(unsigned), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        const unsigned* b = buf[k % STAGES];
        dst[k * BTILE + t] = b[BTILE - 1 - t] + 7u * (unsigned)k;
        dst[k * BTILE + t + BLOCK] = b[BLOCK - 1 - t] ^ 0x9e3779b9u;
        pipe.consumer_release();
    }
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(76);

    // ---- per-thread cuda::pipeline
    static int hin[N], hout[N];
    static long long hsums[BLOCKS * BLOCK];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000000, 1000000);
    int *din, *dout;
    long long* dsums;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMalloc(&dsums, sizeof hsums));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    thread_pipeline<<<BLOCKS, BLOCK>>>(din, dout, dsums);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hsums, dsums, sizeof hsums, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        for (int t = 0; t < BLOCK; ++t) {
            long long acc = 0;
            for (int k = 0; k < TILES; ++k) {
                const int i = (b * TILES + k) * TILE + t;
                acc += hin[i];
                c.eq("thread_pipeline.out", i, hin[i] * 3 - k, hout[i]);
            }
            c.eq("thread_pipeline.sum", b * BLOCK + t, acc, hsums[b * BLOCK + t]);
        }
    }

    // ---- __pipeline_* primitives
    constexpr int NV = BLOCKS * VEC_TILES * BLOCK;
    static int4 vin[NV], vout[NV];
    for (int k = 0; k < NV; ++k)
        vin[k] = make_int4(rng.next_int(-50000, 50000), rng.next_int(-50000, 50000), rng.next_int(-50000, 50000),
                           rng.next_int(-50000, 50000));
    int4 *dvin, *dvout;
    CHECK(cudaMalloc(&dvin, sizeof vin));
    CHECK(cudaMalloc(&dvout, sizeof vout));
    CHECK(cudaMemcpy(dvin, vin, sizeof vin, cudaMemcpyHostToDevice));
    primitives<<<BLOCKS, BLOCK>>>(dvin, dvout);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(vout, dvout, sizeof vout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < NV; ++i) {
        const int k = (i / BLOCK) % VEC_TILES;
        int4 v = vin[i];
        v.x += v.w;
        v.y ^= v.z;
        v.z -= k;
        v.w = v.x + v.y;
        c.eq("primitives.x", i, v.x, vout[i].x);
        c.eq("primitives.y", i, v.y, vout[i].y);
        c.eq("primitives.z", i, v.z, vout[i].z);
        c.eq("primitives.w", i, v.w, vout[i].w);
    }

    // ---- block-scoped cuda::pipeline
    constexpr int NB = BLOCKS * BTILES * BTILE;
    static unsigned bin[NB], bout[NB];
    for (int k = 0; k < NB; ++k) bin[k] = rng.next_u32();
    unsigned *dbin, *dbout;
    CHECK(cudaMalloc(&dbin, sizeof bin));
    CHECK(cudaMalloc(&dbout, sizeof bout));
    CHECK(cudaMemcpy(dbin, bin, sizeof bin, cudaMemcpyHostToDevice));
    block_pipeline<<<BLOCKS, BLOCK>>>(dbin, dbout);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(bout, dbout, sizeof bout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
        for (int k = 0; k < BTILES; ++k) {
            const unsigned* tile = bin + (b * BTILES + k) * BTILE;
            const unsigned* got = bout + (b * BTILES + k) * BTILE;
            for (int t = 0; t < BLOCK; ++t) {
                c.eq("block_pipeline.lo", (b * BTILES + k) * BTILE + t, tile[BTILE - 1 - t] + 7u * (unsigned)k, got[t]);
                c.eq("block_pipeline.hi", (b * BTILES + k) * BTILE + t + BLOCK, tile[BLOCK - 1 - t] ^ 0x9e3779b9u,
                     got[t + BLOCK]);
            }
        }
    }

    cudaFree(din);
    cudaFree(dout);
    cudaFree(dsums);
    cudaFree(dvin);
    cudaFree(dvout);
    cudaFree(dbin);
    cudaFree(dbout);
    return c.finish();
}
