// 048_error_handling: runtime errors are reported and recoverable: a launch with 2048 threads per block
// gives cudaErrorInvalidConfiguration through cudaGetLastError (which then resets to cudaSuccess),
// cudaMemcpy from a null device pointer and cudaMalloc of an impossible size fail, cudaGetErrorString/
// cudaGetErrorName describe them, and a correct launch afterwards still works.
#include "conformance.h"

__global__ void fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

int main() {
    conf::Checker t(CONF_TEST_NAME);
    CHECK(cudaGetLastError());  // starts clean
    int* d;
    CHECK(cudaMalloc(&d, sizeof(int) * 4096));

    fill<<<1, 2048>>>(d, 1);  // more threads per block than any device allows
    cudaError_t e = cudaGetLastError();
    t.eq("2048 threads: cudaGetLastError", 0, (int)cudaErrorInvalidConfiguration, (int)e);
    t.check(cudaGetErrorString(e) != nullptr && std::strlen(cudaGetErrorString(e)) > 0, "empty error string");
    t.check(cudaGetErrorName(e) != nullptr && std::strcmp(cudaGetErrorName(e), "cudaErrorInvalidConfiguration") == 0,
            "error name: %s", cudaGetErrorName(e) ? cudaGetErrorName(e) : "(null)");
    t.eq("cudaGetLastError resets", 0, (int)cudaSuccess, (int)cudaGetLastError());

    fill<<<dim3(1, 1, 1), dim3(32, 32, 2)>>>(d, 1);  // 2048 threads spread over dimensions
    e = cudaGetLastError();
    t.eq("32x32x2 threads", 0, (int)cudaErrorInvalidConfiguration, (int)e);

    int host[16];
    e = cudaMemcpy(host, nullptr, sizeof host, cudaMemcpyDeviceToHost);
    t.check(e != cudaSuccess, "cudaMemcpy from a null device pointer succeeded");
    t.check(std::strlen(cudaGetErrorString(e)) > 0 && std::strlen(cudaGetErrorName(e)) > 0, "empty description of %d",
            (int)e);
    cudaGetLastError();  // clear it

    void* huge = nullptr;
    e = cudaMalloc(&huge, (size_t)1 << 62);
    t.eq("cudaMalloc(2^62)", 0, (int)cudaErrorMemoryAllocation, (int)e);
    cudaGetLastError();

    t.check(std::strlen(cudaGetErrorString(cudaErrorInvalidValue)) > 0, "cudaErrorInvalidValue has no string");
    t.check(std::strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0, "name of cudaSuccess: %s",
            cudaGetErrorName(cudaSuccess));

    // the context is still usable
    fill<<<4, 1024>>>(d, 100);
    CHECK_KERNEL();
    static int back[4096];
    CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 4096; ++k) t.eq("after errors", k, 100 + k % 1024, back[k]);
    CHECK(cudaFree(d));
    return t.finish();
}
