// 048_error_handling: runtime errors are reported and recoverable: a launch with 2048 threads per block
// fails through cudaGetLastError (InvalidConfiguration, or InvalidValue in CUDA 13) and then resets,
// cudaMemcpy from a null device pointer and cudaMalloc of an impossible size fail, cudaGetErrorString/
// cudaGetErrorName describe them, and a correct launch afterwards still works.
#include "conformance.h"

__global__ void fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

int main() {
    conf::Checker t(CONF_TEST_NAME);
    CHECK(cudaGetLastError());  // starts clean
    int* d;
    CHECK(cudaMalloc(&d, sizeof(int) * 4096));

    // A block of 2048 threads is rejected at launch. CUDA 12 reports cudaErrorInvalidConfiguration;
    // the CUDA 13.0 runtime on an H100 reports cudaErrorInvalidValue: either is accepted.
    auto launch_error = [](cudaError_t err) {
        return err == cudaErrorInvalidConfiguration || err == cudaErrorInvalidValue;
    };
    fill<<<1, 2048>>>(d, 1);  // more threads per block than any device allows
    cudaError_t e = cudaGetLastError();
    t.check(launch_error(e), "2048 threads: cudaGetLastError returned %d (%s)", (int)e, cudaGetErrorName(e));
    t.check(cudaGetErrorString(e) != nullptr && std::strlen(cudaGetErrorString(e)) > 0, "empty error string");
    const char* expected_name = e == cudaErrorInvalidValue ? "cudaErrorInvalidValue" : "cudaErrorInvalidConfiguration";
    t.check(cudaGetErrorName(e) != nullptr && std::strcmp(cudaGetErrorName(e), expected_name) == 0, "error name: %s",
            cudaGetErrorName(e) ? cudaGetErrorName(e) : "(null)");
    t.eq("cudaGetLastError resets", 0, (int)cudaSuccess, (int)cudaGetLastError());

    fill<<<dim3(1, 1, 1), dim3(32, 32, 2)>>>(d, 1);  // 2048 threads spread over dimensions
    e = cudaGetLastError();
    t.check(launch_error(e), "32x32x2 threads: cudaGetLastError returned %d (%s)", (int)e, cudaGetErrorName(e));
    fill<<<dim3(1, 1, 1), dim3(1, 1, 65)>>>(d, 1);  // blockDim.z above its limit of 64
    e = cudaGetLastError();
    t.check(launch_error(e), "blockDim.z = 65: cudaGetLastError returned %d (%s)", (int)e, cudaGetErrorName(e));

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
