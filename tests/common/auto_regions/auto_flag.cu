// A flag in a cudaMalloc'd buffer, written with no SyncLab annotation: block 1 fills the buffer's
// first N words and then sets the flag (word N); block 0 polls the flag, then adds the words up
// into word N + 1. Prints where the flag is and PASS when the sum is right.
#include <cstdio>

#include <cuda_runtime.h>

constexpr int N = 64;

__global__ void handoff(int* buf) {
  if (threadIdx.x != 0) return;
  volatile int* flag = buf + N;
  if (blockIdx.x == 0) {
    while (*flag == 0) {  // AUTO-POLL
    }
    __threadfence();
    int sum = 0;
    for (int i = 0; i < N; ++i) sum += ((volatile int*)buf)[i];
    buf[N + 1] = sum;
  } else {
    for (int i = 0; i < N; ++i) ((volatile int*)buf)[i] = i + 1;
    __threadfence();
    *flag = 1;  // AUTO-SET
  }
}

int main() {
  int* buf = nullptr;
  if (cudaMalloc(&buf, (N + 2) * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(buf, 0, (N + 2) * sizeof(int));
  std::printf("flag at %p\n", static_cast<void*>(buf + N));
  handoff<<<2, 32>>>(buf);
  cudaError_t err = cudaDeviceSynchronize();
  int sum = 0;
  cudaMemcpy(&sum, buf + N + 1, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("sum = %d (expected %d, %s)\n", sum, N * (N + 1) / 2, cudaGetErrorString(err));
  const bool ok = err == cudaSuccess && sum == N * (N + 1) / 2;
  std::printf("%s auto_flag\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
