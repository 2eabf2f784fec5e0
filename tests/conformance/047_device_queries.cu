// 047_device_queries: cudaGetDeviceCount/cudaSetDevice/cudaGetDevice, cudaGetDeviceProperties and
// cudaDeviceGetAttribute (sanity ranges and agreement between the two), cudaFuncGetAttributes of a
// kernel with known static shared memory, cudaRuntimeGetVersion/cudaDriverGetVersion, cudaMemGetInfo,
// and a kernel that reports warpSize and its launch shape from the device side.
#include "conformance.h"

constexpr int SHARED_INTS = 1000;

__global__ void probe(int* out) {
    __shared__ int buf[SHARED_INTS];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = warpSize;
        out[1] = blockDim.x;
        out[2] = gridDim.x;
        out[3] = buf[blockDim.x - 1];
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    t.check(count >= 1, "cudaGetDeviceCount: %d devices", count);
    CHECK(cudaSetDevice(0));
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    t.eq("cudaGetDevice", 0, 0, dev);

    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    t.check(std::strlen(p.name) > 0, "device name is empty");
    t.eq("warpSize", 0, 32, p.warpSize);
    t.check(p.maxThreadsPerBlock >= 1024, "maxThreadsPerBlock %d", p.maxThreadsPerBlock);
    t.check(p.maxThreadsDim[0] >= 1024 && p.maxThreadsDim[1] >= 1024 && p.maxThreadsDim[2] >= 64,
            "maxThreadsDim %d %d %d", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
    t.check(p.maxGridSize[0] >= 65535 && p.maxGridSize[1] >= 65535 && p.maxGridSize[2] >= 65535,
            "maxGridSize %d %d %d", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    t.check(p.multiProcessorCount >= 1, "multiProcessorCount %d", p.multiProcessorCount);
    t.check(p.sharedMemPerBlock >= 48 * 1024, "sharedMemPerBlock %zu", p.sharedMemPerBlock);
    t.check(p.totalGlobalMem > 0, "totalGlobalMem %zu", p.totalGlobalMem);
    t.check(p.major * 10 + p.minor >= 75, "compute capability %d.%d below 7.5", p.major, p.minor);
    t.check(p.regsPerBlock > 0 && p.maxThreadsPerMultiProcessor >= p.maxThreadsPerBlock,
            "regsPerBlock %d maxThreadsPerMultiProcessor %d", p.regsPerBlock, p.maxThreadsPerMultiProcessor);
    t.check(p.totalConstMem >= 64 * 1024, "totalConstMem %zu", p.totalConstMem);

    int attr = 0;
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, 0));
    t.eq("attr warpSize", 0, p.warpSize, attr);
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrMultiProcessorCount, 0));
    t.eq("attr multiProcessorCount", 0, p.multiProcessorCount, attr);
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxThreadsPerBlock, 0));
    t.eq("attr maxThreadsPerBlock", 0, p.maxThreadsPerBlock, attr);
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrComputeCapabilityMajor, 0));
    t.eq("attr major", 0, p.major, attr);
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrComputeCapabilityMinor, 0));
    t.eq("attr minor", 0, p.minor, attr);
    CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    t.eq("attr sharedMemPerBlock", 0, (long long)p.sharedMemPerBlock, (long long)attr);

    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, probe));
    t.eq("func sharedSizeBytes", 0, (unsigned long long)(SHARED_INTS * sizeof(int)), (unsigned long long)fa.sharedSizeBytes);
    t.check(fa.maxThreadsPerBlock >= 256 && fa.maxThreadsPerBlock <= p.maxThreadsPerBlock,
            "func maxThreadsPerBlock %d", fa.maxThreadsPerBlock);
    t.check(fa.numRegs >= 1 && fa.numRegs <= 255, "func numRegs %d", fa.numRegs);
    t.check(fa.ptxVersion >= 70, "func ptxVersion %d", fa.ptxVersion);
    t.check(fa.binaryVersion >= 70, "func binaryVersion %d", fa.binaryVersion);

    int rt = 0, drv = 0;
    CHECK(cudaRuntimeGetVersion(&rt));
    CHECK(cudaDriverGetVersion(&drv));
    t.check(rt >= 11000 && drv >= 11000, "runtime version %d, driver version %d", rt, drv);
    size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    t.check(total_b > 0 && free_b <= total_b, "cudaMemGetInfo free %zu total %zu", free_b, total_b);

    int* dout;
    CHECK(cudaMalloc(&dout, sizeof(int) * 4));
    probe<<<3, 256>>>(dout);
    CHECK_KERNEL();
    int out[4];
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    t.eq("device warpSize", 0, 32, out[0]);
    t.eq("device blockDim.x", 0, 256, out[1]);
    t.eq("device gridDim.x", 0, 3, out[2]);
    t.eq("device shared", 0, 255, out[3]);
    return t.finish();
}
