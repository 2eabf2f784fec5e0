// Lab 10, find the bug: stream compaction, each block's output offset handed on from block to block.
//
// kBlocks blocks of kThreads threads keep the elements of in that are not multiples of 3, in their
// order, packed at the front of out. Block b marks its kept elements, and thread 0 numbers them
// (their positions within the block) and counts them. The block's offset in out is the number of
// elements kept by blocks 0..b-1: thread 0 of block b waits until block b - 1's flag is up, reads
// offset[b - 1] (the end of block b - 1's elements), stores offset[b] = that + its count, and
// raises flags[b] (flags are volatile). Then every thread of the block writes its kept element to
// out[offset + position]. The last block also writes the total kept to *kept. The check compares
// *kept and out with the compaction done on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;

__global__ void stream_compact(const int* in, int* out, int* offset, volatile int* flags, int* kept) {
  __shared__ int keep[kThreads], position[kThreads];
  __shared__ int base;
  const int t = int(threadIdx.x), b = int(blockIdx.x);
  const int v = in[b * kThreads + t];
  keep[t] = v % 3 != 0;
  __syncthreads();

  if (t == 0) {
    int count = 0;
    for (int i = 0; i < kThreads; ++i) {
      position[i] = count;
      count += keep[i];
    }
    int before = 0;
    if (b > 0) {
      while (flags[b - 1] == 0) {
      }
      before = offset[b - 1];
    }
    base = before;
    offset[b] = before + count;
    __threadfence();
    flags[b] = 1;
    if (b == int(gridDim.x) - 1) *kept = before + count;
  }
  __syncthreads();
  if (keep[t]) out[base + position[t]] = v;
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
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7 + (i / 9) * 5) % 50;

  int *d_in = nullptr, *d_out = nullptr, *d_offset = nullptr, *d_flags = nullptr, *d_kept = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_offset, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_flags, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&d_kept, sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xff, n * sizeof(int)));
  CHECK(cudaMemset(d_offset, 0, kBlocks * sizeof(int)));
  CHECK(cudaMemset(d_flags, 0, kBlocks * sizeof(int)));
  CHECK(cudaMemset(d_kept, 0, sizeof(int)));
  stream_compact<<<kBlocks, kThreads>>>(d_in, d_out, d_offset, d_flags, d_kept);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int kept = 0;
  std::vector<int> out(n);
  CHECK(cudaMemcpy(&kept, d_kept, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_offset));
  CHECK(cudaFree(d_flags));
  CHECK(cudaFree(d_kept));

  std::vector<int> want;
  for (int i = 0; i < n; ++i)
    if (in[i] % 3 != 0) want.push_back(in[i]);
  if (kept != int(want.size())) {
    std::printf("wrong count of kept elements: %d, expected %d\n", kept, int(want.size()));
    return 1;
  }
  for (int k = 0; k < kept; ++k) {
    if (out[k] != want[k]) {
      std::printf("wrong out[%d]: %d, expected %d\n", k, out[k], want[k]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
