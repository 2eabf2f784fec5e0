// 078_cluster_dsmem: thread block clusters (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension)
// and distributed shared memory: every block of a cluster builds a partial histogram in its own shared
// memory, cluster.sync(), then each block gathers one slice of the bins from all blocks of its cluster
// through cluster.map_shared_rank; also block_rank / num_blocks / dim_blocks. Clusters are used only
// when the device reports cudaDevAttrClusterLaunch and the kernel was compiled for sm_90+; the same
// histogram is always computed without clusters too (partials in global memory, a second kernel
// combines them) and both results are checked against the host.
#include <cooperative_groups.h>

#include "conformance.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int CLUSTER = 4;          // blocks per cluster
constexpr int CLUSTERS = 3;
constexpr int BLOCKS = CLUSTER * CLUSTERS;
constexpr int PER_THREAD = 4;       // input values per thread
constexpr int BINS = 64;            // divisible by CLUSTER
constexpr int N = BLOCKS * BLOCK * PER_THREAD;

__device__ int bin_of(unsigned v) { return (int)((v ^ (v >> 11)) % BINS); }

// One partial histogram of this block's inputs in shared memory.
__device__ void partial_histogram(const unsigned* in, unsigned* hist) {
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) hist[i] = 0;
    __syncthreads();
    const unsigned* mine = in + blockIdx.x * BLOCK * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k) atomicAdd(&hist[bin_of(mine[k * BLOCK + threadIdx.x])], 1u);
}

// out: per cluster, BINS counts; info: per block, rank facts.
__global__ void cluster_histogram(const unsigned* in, unsigned* out, int* info) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ unsigned hist[BINS];
    cg::cluster_group cluster = cg::this_cluster();
    partial_histogram(in, hist);
    cluster.sync();  // every block's partial is complete and visible cluster-wide
    const unsigned rank = cluster.block_rank();
    const int cluster_id = blockIdx.x / CLUSTER;
    constexpr int SLICE = BINS / CLUSTER;
    // Block `rank` owns bins [rank*SLICE, (rank+1)*SLICE): it sums them over all blocks.
    for (int i = threadIdx.x; i < SLICE; i += blockDim.x) {
        const int bin = (int)rank * SLICE + i;
        unsigned s = 0;
        for (unsigned r = 0; r < cluster.num_blocks(); ++r) s += cluster.map_shared_rank(hist, r)[bin];
        out[cluster_id * BINS + bin] = s;
    }
    if (threadIdx.x == 0) {
        info[blockIdx.x * 3 + 0] = (int)rank;
        info[blockIdx.x * 3 + 1] = (int)cluster.num_blocks();
        info[blockIdx.x * 3 + 2] = (int)cluster.dim_blocks().x;
    }
    cluster.sync();  // no block leaves while others may still read its shared memory
#else
    // Never launched: the host uses clusters only for sm_90+ code.
    if (threadIdx.x == 0) info[blockIdx.x * 3] = -1000;
#endif
}

// Fallback, part 1: every block's partial histogram to global memory; the block's "rank" is its
// position in the group of CLUSTER blocks, as in the cluster launch.
__global__ void partials_to_global(const unsigned* in, unsigned* partials, int* info) {
    __shared__ unsigned hist[BINS];
    partial_histogram(in, hist);
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) partials[blockIdx.x * BINS + i] = hist[i];
    if (threadIdx.x == 0) {
        info[blockIdx.x * 3 + 0] = (int)(blockIdx.x % CLUSTER);
        info[blockIdx.x * 3 + 1] = CLUSTER;
        info[blockIdx.x * 3 + 2] = CLUSTER;
    }
}

// Fallback, part 2: one block per group sums the group's partials.
__global__ void combine(const unsigned* partials, unsigned* out) {
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        unsigned s = 0;
        for (int r = 0; r < CLUSTER; ++r) s += partials[(blockIdx.x * CLUSTER + r) * BINS + bin];
        out[blockIdx.x * BINS + bin] = s;
    }
}

static void check_results(conf::Checker& c, const char* how, const unsigned* want, const unsigned* hout,
                          const int* hinfo) {
    char what[64];
    for (int k = 0; k < CLUSTERS * BINS; ++k) {
        std::snprintf(what, sizeof what, "%s.hist", how);
        c.eq(what, k, want[k], hout[k]);
    }
    for (int b = 0; b < BLOCKS; ++b) {
        std::snprintf(what, sizeof what, "%s.block_rank", how);
        c.eq(what, b, b % CLUSTER, hinfo[b * 3 + 0]);
        std::snprintf(what, sizeof what, "%s.num_blocks", how);
        c.eq(what, b, CLUSTER, hinfo[b * 3 + 1]);
        std::snprintf(what, sizeof what, "%s.dim_blocks", how);
        c.eq(what, b, CLUSTER, hinfo[b * 3 + 2]);
    }
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(78);
    static unsigned hin[N], want[CLUSTERS * BINS], hout[CLUSTERS * BINS];
    static int hinfo[BLOCKS * 3];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_u32();
    for (int k = 0; k < N; ++k) {
        const int block = k / (BLOCK * PER_THREAD);
        const unsigned v = hin[k];
        want[(block / CLUSTER) * BINS + (int)((v ^ (v >> 11)) % BINS)] += 1;
    }
    unsigned *din, *dout, *dpartials;
    int* dinfo;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMalloc(&dpartials, sizeof(unsigned) * BLOCKS * BINS));
    CHECK(cudaMalloc(&dinfo, sizeof hinfo));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));

    // Without clusters (always).
    CHECK(cudaMemset(dout, 0xff, sizeof hout));
    CHECK(cudaMemset(dinfo, 0xff, sizeof hinfo));
    partials_to_global<<<BLOCKS, BLOCK>>>(din, dpartials, dinfo);
    CHECK(cudaGetLastError());
    combine<<<CLUSTERS, BLOCK>>>(dpartials, dout);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hinfo, dinfo, sizeof hinfo, cudaMemcpyDeviceToHost));
    check_results(c, "global", want, hout, hinfo);

    // With clusters, where the device and the compiled code have them.
    int dev = 0, cluster_launch = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, dev));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, cluster_histogram));
    if (cluster_launch && fa.ptxVersion >= 90) {
        CHECK(cudaMemset(dout, 0xff, sizeof hout));
        CHECK(cudaMemset(dinfo, 0xff, sizeof hinfo));
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(BLOCKS);
        cfg.blockDim = dim3(BLOCK);
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = CLUSTER;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        CHECK(cudaLaunchKernelEx(&cfg, cluster_histogram, (const unsigned*)din, dout, dinfo));
        CHECK_KERNEL();
        CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hinfo, dinfo, sizeof hinfo, cudaMemcpyDeviceToHost));
        check_results(c, "cluster", want, hout, hinfo);
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dpartials);
    cudaFree(dinfo);
    return c.finish();
}
