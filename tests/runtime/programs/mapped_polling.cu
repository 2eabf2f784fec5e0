// Host threads and a running kernel talk through mapped pinned memory: kernels report progress
// and wait for the host's "go", which only works if the host keeps running while the kernel
// does. Round 1: another host thread answers while the main thread sits in
// cudaDeviceSynchronize. Round 2: the main thread polls, and cudaStreamQuery says the kernel is
// still running until it has answered.
#include "check.h"

#include <atomic>
#include <chrono>
#include <thread>

constexpr int kBlocks = 4;  // few enough to be resident together on any device

__global__ void wait_for_host(volatile int* progress, volatile int* go, int* out) {
  if (threadIdx.x == 0) {
    atomicAdd_system((int*)progress, 1);
    while (*go == 0) {
    }
    out[blockIdx.x] = *go + int(blockIdx.x);
  }
}

static bool wait_until(volatile int* p, int value, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (*p != value)
    if (std::chrono::steady_clock::now() > end) return false;
  return true;
}

int main() {
  int *progress = nullptr, *go = nullptr;
  CHECK_OK(cudaHostAlloc(&progress, sizeof(int), cudaHostAllocMapped));
  CHECK_OK(cudaHostAlloc(&go, sizeof(int), cudaHostAllocMapped));
  int *d_progress = nullptr, *d_go = nullptr, *out = nullptr;
  CHECK_OK(cudaHostGetDevicePointer(&d_progress, progress, 0));
  CHECK_OK(cudaHostGetDevicePointer(&d_go, go, 0));
  CHECK_OK(cudaMalloc(&out, kBlocks * sizeof(int)));
  int result[kBlocks];

  // Round 1: a helper thread polls and answers; main blocks in cudaDeviceSynchronize.
  *(volatile int*)progress = 0;
  *(volatile int*)go = 0;
  wait_for_host<<<kBlocks, 32>>>(d_progress, d_go, out);
  CHECK_OK(cudaGetLastError());
  std::atomic<bool> saw_all{false};
  std::thread helper([&] {
    saw_all = wait_until(progress, kBlocks, 60.0);
    *(volatile int*)go = 100;
  });
  CHECK_OK(cudaDeviceSynchronize());
  helper.join();
  CHECK_TRUE(saw_all.load());
  CHECK_OK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) CHECK_EQ_INT(result[b], 100 + b);

  // Round 2: the main thread polls.
  *(volatile int*)progress = 0;
  *(volatile int*)go = 0;
  wait_for_host<<<kBlocks, 32>>>(d_progress, d_go, out);
  CHECK_TRUE(wait_until(progress, kBlocks, 60.0));
  CHECK_ERR(cudaStreamQuery(0), cudaErrorNotReady);  // it is waiting for us
  *(volatile int*)go = 7;
  CHECK_OK(cudaDeviceSynchronize());
  CHECK_OK(cudaStreamQuery(0));
  CHECK_OK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) CHECK_EQ_INT(result[b], 7 + b);

  CHECK_OK(cudaFreeHost(progress));
  CHECK_OK(cudaFreeHost(go));
  CHECK_OK(cudaFree(out));
  return finish("mapped_polling");
}
