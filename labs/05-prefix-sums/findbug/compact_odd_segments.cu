// Lab 05, find the bug: stream compaction of each block's segment, by warp scans in shared memory.
//
// The input is kBlocks segments of kThreads values. Block b keeps the odd values of segment b in
// their order: the k-th odd value goes to out[b * kThreads + k], and counts[b] gets how many there
// are. Each thread flags its value (1: kept), and each warp scans its 32 flags in place in the
// shared array pos, warp-synchronously: at step off = 1, 2, 4, 8, 16 each lane adds the flag sum
// held off lanes to its left. The warps' counts, in warp_counts, then give each warp its start. A
// kept value's place is its warp's start plus its inclusive position minus 1. No atomics. The
// check compares every segment and count with a host compaction.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

__global__ void compact_segments(const int* in, int* out, int* counts) {
  __shared__ volatile int pos[kThreads];
  __shared__ int warp_counts[kWarps];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int base = blockIdx.x * kThreads;
  const int v = in[base + t];
  const int keep = v % 2 != 0 ? 1 : 0;
  pos[t] = keep;
  for (int off = 1; off < 32; off *= 2) {
    const int left = lane >= off ? pos[t - off] : 0;
    pos[t] += left;
  }
  if (lane == 31) warp_counts[warp] = pos[t];
  __syncthreads();
  int start = 0, total = 0;
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) start += warp_counts[w];
    total += warp_counts[w];
  }
  if (keep) out[base + start + pos[t] - 1] = v;
  if (t == 0) counts[blockIdx.x] = total;
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
  const int n = kBlocks * kThreads;
  std::vector<int> values(n);
  unsigned state = 2024u;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = int((state >> 20) % 100u);
  }

  int *in = nullptr, *out = nullptr, *counts = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMalloc(&counts, kBlocks * sizeof(int)));
  CHECK(cudaMemcpy(in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, n * sizeof(int)));
  CHECK(cudaMemset(counts, 0, kBlocks * sizeof(int)));
  compact_segments<<<kBlocks, kThreads>>>(in, out, counts);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(n), got_counts(kBlocks);
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_counts.data(), counts, kBlocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(counts));

  for (int b = 0; b < kBlocks; ++b) {
    int k = 0;
    for (int t = 0; t < kThreads; ++t) {
      const int v = values[b * kThreads + t];
      if (v % 2 == 0) continue;
      if (got[b * kThreads + k] != v) {
        std::printf("wrong compaction: out[%d] (block %d, kept value %d) is %d, expected %d\n",
                    b * kThreads + k, b, k, got[b * kThreads + k], v);
        return 1;
      }
      ++k;
    }
    if (got_counts[b] != k) {
      std::printf("wrong count of block %d: %d, expected %d\n", b, got_counts[b], k);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
