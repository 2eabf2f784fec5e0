// Invalid launch configurations and bad arguments give CUDA's (non-sticky) errors: the call or
// the next cudaGetLastError returns them, and the device keeps working.
#include "check.h"

#include "synclab/sim_control.h"

__global__ void store_index(int* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = int(threadIdx.x); }

__global__ void use_dynamic_shared(int* p) {
  extern __shared__ int s[];
  s[threadIdx.x] = int(threadIdx.x) * 2;
  __syncthreads();
  p[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void __launch_bounds__(64) bounded(int* p) { p[threadIdx.x] = 1; }

__device__ int a_symbol[4];

static void not_a_kernel() {}

int main() {
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, 4096 * sizeof(int)));

  // ---- launch configurations ----
  store_index<<<1, 2048>>>(d);  // more threads per block than any device allows
  CHECK_ERR(cudaGetLastError(), BAD_LAUNCH_CONFIG);
  CHECK_ERR(cudaGetLastError(), cudaSuccess);  // cleared by the read: not sticky
  store_index<<<0, 32>>>(d);
  CHECK_ERR(cudaGetLastError(), BAD_LAUNCH_CONFIG);
  store_index<<<dim3(1, 70000), 32>>>(d);  // grid y is limited to 65535
  CHECK_ERR(cudaGetLastError(), BAD_LAUNCH_CONFIG);
  store_index<<<1, dim3(1, 1, 65)>>>(d);  // block z is limited to 64
  CHECK_ERR(cudaGetLastError(), BAD_LAUNCH_CONFIG);
  store_index<<<1, dim3(0, 1, 1)>>>(d);
  CHECK_ERR(cudaGetLastError(), BAD_LAUNCH_CONFIG);
  bounded<<<1, 128>>>(d);  // above __launch_bounds__(64)
  cudaError_t bounds = cudaGetLastError();
  CHECK_TRUE(bounds == cudaErrorInvalidValue || bounds == cudaErrorLaunchOutOfResources);
  bounded<<<1, 64>>>(d);
  CHECK_OK(cudaGetLastError());

  // Dynamic shared memory above the default 48 KiB needs the opt-in attribute first.
  cudaDeviceProp prop;
  CHECK_OK(cudaGetDeviceProperties(&prop, 0));
  use_dynamic_shared<<<1, 32, prop.sharedMemPerBlockOptin + 1024>>>(d);
  cudaError_t shared_error = cudaGetLastError();
  CHECK_TRUE(shared_error == cudaErrorInvalidValue || shared_error == BAD_LAUNCH_CONFIG);
  use_dynamic_shared<<<1, 32, 49152 + 4096>>>(d);
  CHECK_ERR(cudaGetLastError(), shared_error);
  CHECK_OK(cudaFuncSetAttribute(use_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152 + 4096));
  use_dynamic_shared<<<1, 32, 49152 + 4096>>>(d);
  CHECK_OK(cudaGetLastError());
  CHECK_ERR(cudaFuncSetAttribute(use_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(prop.sharedMemPerBlockOptin) + 4096),
            cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);  // a failed call is the last error too

  // The device still works, and computes the right thing.
  store_index<<<4, 32>>>(d);
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaDeviceSynchronize());
  int h[128];
  CHECK_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; ++i) CHECK_EQ_INT(h[i], i % 32);

  // ---- bad arguments ----
  int host[16] = {};
  CHECK_ERR(cudaMemcpy(host, host, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy(h, d, 64, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
  CHECK_ERR(cudaFree(host), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpyToSymbol(host, host, 4), cudaErrorInvalidSymbol);
  CHECK_ERR(cudaSetDevice(1000), cudaErrorInvalidDevice);
  int* twice = nullptr;
  CHECK_OK(cudaMalloc(&twice, 64));
  CHECK_OK(cudaFree(twice));
  CHECK_OK(cudaFree(nullptr));
  cudaEvent_t never;
  CHECK_OK(cudaEventCreate(&never));
  float ms = 0;
  CHECK_ERR(cudaEventElapsedTime(&ms, never, never), cudaErrorInvalidResourceHandle);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  CHECK_OK(cudaEventDestroy(never));
  CHECK_ERR(cudaMemset(host, 0, sizeof host), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy(host, host, 16, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy(d, host, 8192 * sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  CHECK_ERR(cudaFree(d + 1), cudaErrorInvalidValue);
  CHECK_ERR(cudaFree(twice), cudaErrorInvalidValue);  // double free
  int* pinned = nullptr;
  CHECK_OK(cudaMallocHost(&pinned, 64));
  CHECK_ERR(cudaFree(pinned), cudaErrorInvalidValue);  // needs cudaFreeHost
  CHECK_ERR(cudaFreeHost(d), cudaErrorInvalidValue);
  CHECK_OK(cudaFreeHost(pinned));
  void* dev_of_host = nullptr;
  CHECK_ERR(cudaHostGetDevicePointer(&dev_of_host, host, 0), cudaErrorInvalidValue);
  void* huge = nullptr;
  CHECK_ERR(cudaMalloc(&huge, size_t(1) << 50), cudaErrorMemoryAllocation);
  CHECK_ERR(cudaMemcpy2D(d, 4, host, 4, 8, 2, cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
  cudaStream_t bad_flags;
  CHECK_ERR(cudaStreamCreateWithFlags(&bad_flags, 8), cudaErrorInvalidValue);
  CHECK_ERR(cudaFuncGetAttributes(nullptr, store_index), cudaErrorInvalidValue);
  cudaFuncAttributes attr;
  CHECK_ERR(cudaFuncGetAttributes(&attr, (const void*)not_a_kernel), NOT_A_KERNEL);
  CHECK_ERR(cudaGetLastError(), NOT_A_KERNEL);
  cudaPointerAttributes pa;
  CHECK_OK(cudaPointerGetAttributes(&pa, host));
  CHECK_EQ_INT(pa.type, cudaMemoryTypeUnregistered);
  CHECK_OK(cudaPointerGetAttributes(&pa, d));
  CHECK_EQ_INT(pa.type, cudaMemoryTypeDevice);

  if (synclab::sim::active()) {
    // Checks only the simulator makes (on a GPU these crash or are undefined behaviour).
    CHECK_ERR(cudaMemcpy(host, (const void*)0x1234, 16, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    cudaStream_t gone;
    CHECK_OK(cudaStreamCreate(&gone));
    CHECK_OK(cudaStreamDestroy(gone));
    CHECK_ERR(cudaStreamSynchronize(gone), cudaErrorInvalidResourceHandle);
    store_index<<<1, 1, 0, gone>>>(d);
    CHECK_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    // Garbage handed to the runtime is an error, not a crash.
    void* bad_args[] = {(void*)0x10};
    CHECK_ERR(cudaLaunchKernel((const void*)store_index, dim3(1), dim3(1), bad_args, 0, nullptr), cudaErrorInvalidValue);
    CHECK_ERR(cudaLaunchKernel((const void*)store_index, dim3(1), dim3(1), (void**)0x20, 0, nullptr),
              cudaErrorInvalidValue);
    CHECK_ERR(cudaStreamSynchronize((cudaStream_t)0xdeadbeef), cudaErrorInvalidResourceHandle);
    CHECK_ERR(cudaEventRecord((cudaEvent_t)0xdeadbeef, nullptr), cudaErrorInvalidResourceHandle);
    CHECK_ERR(cudaMemcpy((void*)0x30, d, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  }

  CHECK_OK(cudaDeviceSynchronize());
  CHECK_OK(cudaGetLastError());

  // Names and strings for every code, including ones never returned here.
  CHECK_TRUE(std::strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument") == 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered") == 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorName(cudaErrorStreamCaptureUnsupported), "cudaErrorStreamCaptureUnsupported") == 0);
  CHECK_TRUE(std::strlen(cudaGetErrorString(cudaErrorStreamCaptureUnsupported)) > 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);
  CHECK_TRUE(std::strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
  std::printf("unknown code: %s / %s\n", cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));
  CHECK_OK(cudaFree(d));
  return finish("launch_config_errors");
}
