// Lab 10, find the bug: one block builds a table of weights, the other blocks wait for it and use it.
//
// Block 0 (kThreads threads) builds a table of kThreads weights in global memory: thread t writes
// weight[t] = (t * t) % 7 + seed[t]. When the whole table is written, thread 0 of block 0 raises a
// ready flag in global memory (a release store). Blocks 1..kBlocks - 1 each own kThreads values:
// their thread 0 waits until the flag is up (acquire loads), the block meets at a barrier, and
// thread t of block b writes out[(b - 1) * kThreads + t] = value[...] * weight[value[...] % kThreads].
// The check compares out with the same products computed on the host.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;

__global__ void scale_table(const int* seed, const int* value, int* weight, int* ready, int* out) {
  const int t = int(threadIdx.x), b = int(blockIdx.x);
  if (b == 0) {
    weight[t] = (t * t) % 7 + seed[t];
    __syncthreads();
    if (t == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_block> flag(*ready);
      flag.store(1, cuda::std::memory_order_release);
    }
    return;
  }

  if (t == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_block> flag(*ready);
    while (flag.load(cuda::std::memory_order_acquire) == 0) {
    }
  }
  __syncthreads();
  const int i = (b - 1) * kThreads + t;
  out[i] = value[i] * weight[value[i] % kThreads];
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

int main() {
  const int n = (kBlocks - 1) * kThreads;
  std::vector<int> seed(kThreads), value(n);
  for (int t = 0; t < kThreads; ++t) seed[t] = (t * 11) % 5 + 1;
  for (int i = 0; i < n; ++i) value[i] = (i * 29 + 3) % 200;

  int *d_seed = nullptr, *d_value = nullptr, *d_weight = nullptr, *d_ready = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_seed, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&d_value, n * sizeof(int)));
  CHECK(cudaMalloc(&d_weight, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&d_ready, sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_seed, seed.data(), kThreads * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_value, value.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_weight, 0, kThreads * sizeof(int)));
  CHECK(cudaMemset(d_ready, 0, sizeof(int)));
  CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
  scale_table<<<kBlocks, kThreads>>>(d_seed, d_value, d_weight, d_ready, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_seed));
  CHECK(cudaFree(d_value));
  CHECK(cudaFree(d_weight));
  CHECK(cudaFree(d_ready));
  CHECK(cudaFree(d_out));

  for (int i = 0; i < n; ++i) {
    const int w = (value[i] % kThreads) * (value[i] % kThreads) % 7 + seed[value[i] % kThreads];
    if (out[i] != value[i] * w) {
      std::printf("wrong product %d: %d, expected %d\n", i, out[i], value[i] * w);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
