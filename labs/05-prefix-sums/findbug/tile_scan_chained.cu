// Lab 05, find the bug: an inclusive scan across blocks in one launch, tile after tile (a chained scan).
//
// out[i] = in[0] + ... + in[i] for kValues values in tiles of kThreads x kItems (the last tile is
// short). A block scans one tile: each thread adds up its kItems consecutive values, the warp scans
// those sums with shuffles, and lane 0 waits until the tile before has published its inclusive
// prefix (ready[tile - 1] set, with release and acquire), adds it, and publishes the tile's own in
// prefixes[tile] and ready[tile]. Then each thread writes its items' running sums. The launch has
// kTiles blocks of one warp. The check compares out with a host scan.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kThreads = 32;
constexpr int kItems = 4;
constexpr int kTileSize = kThreads * kItems;
constexpr int kValues = 8 * kTileSize - 45;
constexpr int kTiles = (kValues + kTileSize - 1) / kTileSize;

__global__ void chained_scan(const int* in, int n, int* out, int* prefixes, unsigned* ready) {
  const int tile = blockIdx.x;
  const int lane = threadIdx.x;
  const int first = tile * kTileSize + lane * kItems;
  int mine = 0;
  for (int k = 0; k < kItems; ++k)
    if (first + k < n) mine += in[first + k];
  int inclusive = mine;
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  const int tile_sum = __shfl_sync(0xffffffffu, inclusive, 31);
  int offset = 0;
  if (lane == 0) {
    if (tile > 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> before(ready[tile - 1]);
      while (before.load(cuda::memory_order_acquire) == 0) {
      }
      offset = prefixes[tile - 1];
    }
    prefixes[tile] = offset + tile_sum;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(ready[tile]).store(1u, cuda::memory_order_release);
  }
  offset = __shfl_sync(0xffffffffu, offset, 0);
  int running = offset + inclusive - mine;
  for (int k = 0; k < kItems; ++k) {
    if (first + k < n) {
      running += in[first + k];
      out[first + k] = running;
    }
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
  std::vector<int> values(kValues);
  for (int i = 0; i < kValues; ++i) values[i] = (i * 13 + 3) % 11 - 2;

  int *in = nullptr, *out = nullptr, *prefixes = nullptr;
  unsigned* ready = nullptr;
  CHECK(cudaMalloc(&in, kValues * sizeof(int)));
  CHECK(cudaMalloc(&out, kValues * sizeof(int)));
  CHECK(cudaMalloc(&prefixes, kTiles * sizeof(int)));
  CHECK(cudaMalloc(&ready, kTiles * sizeof(unsigned)));
  CHECK(cudaMemcpy(in, values.data(), kValues * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, kValues * sizeof(int)));
  CHECK(cudaMemset(prefixes, 0, kTiles * sizeof(int)));
  CHECK(cudaMemset(ready, 0, kTiles * sizeof(unsigned)));
  chained_scan<<<kTiles, kThreads>>>(in, kValues, out, prefixes, ready);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kValues);
  CHECK(cudaMemcpy(got.data(), out, kValues * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(prefixes));
  CHECK(cudaFree(ready));

  int sum = 0;
  for (int i = 0; i < kValues; ++i) {
    sum += values[i];
    if (got[i] != sum) {
      std::printf("wrong scan: out[%d] (tile %d) is %d, expected %d\n", i, i / kTileSize, got[i], sum);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
