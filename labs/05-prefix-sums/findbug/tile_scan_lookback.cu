// Lab 05, find the bug: an inclusive scan across blocks in one launch, by decoupled look-back.
//
// out[i] = in[0] + ... + in[i] for n values in tiles of kThreads (the last tile is short). A block
// takes its tile from an atomic ticket counter, scans the tile (warp shuffles, then the warps'
// sums), and its thread 0 publishes the tile's status in flags[tile]: kAggregate once
// aggregates[tile] holds the tile's own sum, kPrefix once prefixes[tile] holds the sum of every
// value up to the tile's end. To find its offset, thread 0 looks back over the tiles before its
// own: it adds their aggregates until it meets a tile whose prefix is known, and adds that prefix.
// The check compares out with a host scan, and expects the counter at the number of tiles and
// every flag at kPrefix.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kThreads = 64;
constexpr int kWarps = kThreads / 32;
constexpr int kValues = 7 * kThreads - 19;
constexpr int kTiles = (kValues + kThreads - 1) / kThreads;
enum TileStatus : unsigned { kInvalid = 0, kAggregate = 1, kPrefix = 2 };

// Every thread of the block calls it; returns the inclusive scan at this thread and sets *total to
// the block's sum.
__device__ int block_inclusive_scan(int v, int* total) {
  __shared__ int warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  if (lane == 31) warp_sums[warp] = v;
  __syncthreads();
  int before = 0, sum = 0;
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) before += warp_sums[w];
    sum += warp_sums[w];
  }
  *total = sum;
  return v + before;
}

__global__ void scan_lookback(const int* in, int n, int* out, unsigned* tile_counter, unsigned* flags,
                              int* aggregates, int* prefixes) {
  __shared__ unsigned tile_s;
  __shared__ int offset_s;
  if (threadIdx.x == 0) tile_s = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const int tile = int(tile_s);
  const int i = tile * kThreads + threadIdx.x;
  int total = 0;
  const int inclusive = block_inclusive_scan(i < n ? in[i] : 0, &total);
  if (threadIdx.x == 0) {
    volatile unsigned* vflags = flags;
    int offset = 0;
    if (tile > 0) {
      aggregates[tile] = total;
      __threadfence();
      vflags[tile] = kAggregate;
      for (int j = tile - 1; j >= 0; --j) {
        unsigned status;
        while ((status = vflags[j]) == kInvalid) {}
        if (status == kPrefix) {
          offset += prefixes[j];
          break;
        }
        offset += aggregates[j];
      }
    }
    prefixes[tile] = offset + total;
    __threadfence();
    vflags[tile] = kPrefix;
    offset_s = offset;
  }
  __syncthreads();
  if (i < n) out[i] = inclusive + offset_s;
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
  std::vector<int> values(kValues);
  for (int i = 0; i < kValues; ++i) values[i] = (i * 37 + 5) % 19 + 1;

  int *in = nullptr, *out = nullptr, *aggregates = nullptr, *prefixes = nullptr;
  unsigned *counter = nullptr, *flags = nullptr;
  CHECK(cudaMalloc(&in, kValues * sizeof(int)));
  CHECK(cudaMalloc(&out, kValues * sizeof(int)));
  CHECK(cudaMalloc(&aggregates, kTiles * sizeof(int)));
  CHECK(cudaMalloc(&prefixes, kTiles * sizeof(int)));
  CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CHECK(cudaMalloc(&flags, kTiles * sizeof(unsigned)));
  CHECK(cudaMemcpy(in, values.data(), kValues * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, kValues * sizeof(int)));
  CHECK(cudaMemset(aggregates, 0, kTiles * sizeof(int)));
  CHECK(cudaMemset(prefixes, 0, kTiles * sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  CHECK(cudaMemset(flags, 0, kTiles * sizeof(unsigned)));
  scan_lookback<<<kTiles, kThreads>>>(in, kValues, out, counter, flags, aggregates, prefixes);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kValues);
  std::vector<unsigned> got_flags(kTiles);
  unsigned got_counter = 0;
  CHECK(cudaMemcpy(got.data(), out, kValues * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_flags.data(), flags, kTiles * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&got_counter, counter, sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (void* p : {(void*)in, (void*)out, (void*)aggregates, (void*)prefixes, (void*)counter, (void*)flags})
    CHECK(cudaFree(p));

  if (got_counter != unsigned(kTiles)) {
    std::printf("wrong tile counter: %u, expected %d\n", got_counter, kTiles);
    return 1;
  }
  for (int t = 0; t < kTiles; ++t) {
    if (got_flags[t] != kPrefix) {
      std::printf("wrong flag of tile %d: %u, expected %u (kPrefix)\n", t, got_flags[t], unsigned(kPrefix));
      return 1;
    }
  }
  int sum = 0;
  for (int i = 0; i < kValues; ++i) {
    sum += values[i];
    if (got[i] != sum) {
      std::printf("wrong scan: out[%d] (tile %d) is %d, expected %d\n", i, i / kThreads, got[i], sum);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
