// Lab 07, find the bug: inclusive prefix sums of the rows of a matrix, one launch for all rows.
//
// The matrix has kRows rows of n = blocks x threads values; thread t of block b owns column
// b x threads + t in every row. A row is scanned in two phases: each block scans its tile of the
// row in shared memory and its last thread writes the tile's total to totals[row][block]; then,
// after a grid barrier, each thread adds the totals of the blocks before its own. The grid barrier
// uses no atomics (the lock-free barrier of Xiao and Feng): thread 0 of block i writes the round
// to arrive[i]; in block 0, thread i waits for arrive[i], the block meets, and thread i writes the
// round to depart[i]; thread 0 of block i waits for depart[i]. It needs at least as many threads
// per block as blocks, and all blocks resident at once (4 blocks of 32 threads). The check
// compares every row with a host scan.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 32;
constexpr int kRows = 3;

// Every thread of every block calls it with round = 1, 2, ...; arrive and depart start at 0.
__device__ void lockfree_barrier(unsigned* arrive, unsigned* depart, unsigned round) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  if (t == 0) {
    __threadfence();
    *(volatile unsigned*)&arrive[blockIdx.x] = round;
  }
  if (blockIdx.x == 0 && t < gridDim.x) {
    while (*(volatile unsigned*)&arrive[t] != round) {
    }
    __threadfence();
    __syncthreads();
    __threadfence();
    *(volatile unsigned*)&depart[t] = round;
  }
  if (t == 0) {
    while (*(volatile unsigned*)&depart[blockIdx.x] != round) {
    }
    __threadfence();
  }
  __syncthreads();
}

// in and out: kRows x n values, row-major; totals: kRows x blocks words.
__global__ void scan_rows(const unsigned* in, unsigned* out, unsigned* totals, unsigned* arrive,
                          unsigned* depart) {
  __shared__ unsigned tile[kThreads];
  const int n = gridDim.x * blockDim.x;
  const int t = threadIdx.x;
  const int col = blockIdx.x * blockDim.x + t;
  for (int row = 0; row < kRows; ++row) {
    tile[t] = in[row * n + col];
    for (int off = 1; off < blockDim.x; off *= 2) {
      __syncthreads();
      const unsigned add = t >= off ? tile[t - off] : 0u;
      __syncthreads();
      tile[t] += add;
    }
    unsigned* row_totals = totals + row * gridDim.x;
    if (t == blockDim.x - 1) row_totals[blockIdx.x] = tile[t];
    lockfree_barrier(arrive, depart, unsigned(row + 1));
    unsigned offset = 0;
    for (int b = 0; b < int(blockIdx.x); ++b) offset += row_totals[b];
    out[row * n + col] = tile[t] + offset;
  }
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
  std::vector<unsigned> in(kRows * n);
  for (int i = 0; i < kRows * n; ++i) in[i] = unsigned((i * 7 + 3) % 10);

  unsigned *d_in = nullptr, *d_out = nullptr, *totals = nullptr, *flags = nullptr;
  CHECK(cudaMalloc(&d_in, kRows * n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, kRows * n * sizeof(unsigned)));
  CHECK(cudaMalloc(&totals, kRows * kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&flags, 2 * kBlocks * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, in.data(), kRows * n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, kRows * n * sizeof(unsigned)));
  CHECK(cudaMemset(flags, 0, 2 * kBlocks * sizeof(unsigned)));
  scan_rows<<<kBlocks, kThreads>>>(d_in, d_out, totals, flags, flags + kBlocks);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(kRows * n);
  CHECK(cudaMemcpy(got.data(), d_out, kRows * n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(totals));
  CHECK(cudaFree(flags));

  for (int row = 0; row < kRows; ++row) {
    unsigned sum = 0;
    for (int c = 0; c < n; ++c) {
      sum += in[row * n + c];
      if (got[row * n + c] != sum) {
        std::printf("wrong prefix sum at row %d column %d: %u, expected %u\n", row, c, got[row * n + c], sum);
        return 1;
      }
    }
  }
  std::printf("ok\n");
  return 0;
}
