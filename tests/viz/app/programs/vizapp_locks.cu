// 1024 lock bits (32 words, drawn as 32 x 32) taken by 512 threads in 4 blocks: thread t takes bit
// (t * 37) % 256 of the first 8 words, so two threads of different warps share each bit and
// contend for it. A lane takes its bit with atomicOr (retrying while it was already set), adds to
// the bit's counter, and clears the bit with atomicAnd. Lanes of one warp never share a bit, so
// this completes under lockstep too.
#include <cstdio>

#include <cuda_runtime.h>

#include <synclab/regions.h>

constexpr int kThreads = 512, kBits = 1024, kUsed = 256;

__global__ void take_bits(unsigned* locks, int* counters) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int bit = (t * 37) % kUsed;
  const unsigned m = 1u << (bit % 32);
  bool done = false;
  while (!done) {
    if ((atomicOr(&locks[bit / 32], m) & m) == 0) {  // got it
      __threadfence();
      counters[bit] += 1;
      __threadfence();
      atomicAnd(&locks[bit / 32], ~m);
      done = true;
    }
  }
}

int main() {
  unsigned* locks = nullptr;
  int* counters = nullptr;
  if (cudaMalloc(&locks, kBits / 8) != cudaSuccess) return 1;
  if (cudaMalloc(&counters, kUsed * sizeof(int)) != cudaSuccess) return 1;
  if (synclab_region(locks, kBits / 8, "locks", "lock-bits", 32, 32) != 0) return 1;
  cudaMemset(locks, 0, kBits / 8);
  cudaMemset(counters, 0, kUsed * sizeof(int));
  take_bits<<<kThreads / 128, 128>>>(locks, counters);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  int h[kUsed];
  cudaMemcpy(h, counters, sizeof h, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int b = 0; b < kUsed; ++b) ok = ok && h[b] == kThreads / kUsed;
  cudaFree(locks);
  cudaFree(counters);
  std::printf("%s vizapp_locks\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
