// Lab 09, find the bug: the longest-common-subsequence table of two strings, as dataflow of tiles.
//
// L(i, j) is the length of the longest common subsequence of a[0..i) and b[0..j): L(i, 0) =
// L(0, j) = 0, and L(i, j) = L(i-1, j-1) + 1 when a[i-1] == b[j-1], else max(L(i-1, j), L(i, j-1)).
// L is (kN + 1) x (kN + 1) ints in global memory, row-major, cut into kTile x kTile tiles. One launch
// of one block per tile: each block takes the next tile in row-major order from a ticket counter,
// so the tiles north and west of it went to blocks that started before it. A tile may use L's
// cells north and west of it once those tiles are ready: thread 0 waits (acquire, GPU scope) for
// their ready flags. The block copies its halo (the row above the tile and the column left of it)
// into shared memory, one cell of each per thread, computes the tile anti-diagonal by
// anti-diagonal (thread r owns row r), writes the tile back to L, and thread 0 raises the tile's
// ready flag (release, GPU scope). The check compares all of L with the table computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kTile = 16;
constexpr int kN = 48;  // 3 x 3 tiles
constexpr int kTiles = kN / kTile;

__device__ int load_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void store_release_gpu(int* p, int v) {
  asm volatile("st.release.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void lcs_tiles(const char* a, const char* b, int* L, int* ready, int* next_tile) {
  __shared__ int tile;
  __shared__ int cell[kTile + 1][kTile + 1];  // cell[0][*], cell[*][0]: the halo
  const int r = int(threadIdx.x);
  if (r == 0) tile = atomicAdd(next_tile, 1);
  __syncthreads();
  const int ti = tile / kTiles, tj = tile % kTiles;
  const int i0 = ti * kTile, j0 = tj * kTile;  // the tile is L(i0 + 1.., j0 + 1..)

  if (r == 0) {
    if (ti > 0)
      while (load_acquire_gpu(&ready[tile - kTiles]) == 0) {
      }
    if (tj > 0)
      while (load_acquire_gpu(&ready[tile - 1]) == 0) {
      }
  }
  cell[0][r + 1] = L[i0 * (kN + 1) + j0 + r + 1];
  cell[r + 1][0] = L[(i0 + r + 1) * (kN + 1) + j0];
  if (r == 0) cell[0][0] = L[i0 * (kN + 1) + j0];
  __syncthreads();

  for (int d = 0; d < 2 * kTile - 1; ++d) {
    const int c = d - r;
    if (c >= 0 && c < kTile) {
      const int i = r + 1, j = c + 1;
      cell[i][j] = a[i0 + r] == b[j0 + c] ? cell[i - 1][j - 1] + 1 : max(cell[i - 1][j], cell[i][j - 1]);
    }
    __syncthreads();
  }
  for (int c = 1; c <= kTile; ++c) L[(i0 + r + 1) * (kN + 1) + j0 + c] = cell[r + 1][c];
  __syncthreads();
  if (r == 0) store_release_gpu(&ready[tile], 1);
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
  const int cells = (kN + 1) * (kN + 1);
  std::vector<char> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) {
    a[i] = char('A' + (i * 7 + i / 3) % 4);
    b[i] = char('A' + (i * 5 + 1) % 4);
  }

  char *d_a = nullptr, *d_b = nullptr;
  int *d_L = nullptr, *d_ready = nullptr, *d_next = nullptr;
  CHECK(cudaMalloc(&d_a, kN));
  CHECK(cudaMalloc(&d_b, kN));
  CHECK(cudaMalloc(&d_L, cells * sizeof(int)));
  CHECK(cudaMalloc(&d_ready, kTiles * kTiles * sizeof(int)));
  CHECK(cudaMalloc(&d_next, sizeof(int)));
  CHECK(cudaMemcpy(d_a, a.data(), kN, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), kN, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_L, 0, cells * sizeof(int)));
  CHECK(cudaMemset(d_ready, 0, kTiles * kTiles * sizeof(int)));
  CHECK(cudaMemset(d_next, 0, sizeof(int)));
  lcs_tiles<<<kTiles * kTiles, kTile>>>(d_a, d_b, d_L, d_ready, d_next);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(cells);
  CHECK(cudaMemcpy(got.data(), d_L, cells * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_L));
  CHECK(cudaFree(d_ready));
  CHECK(cudaFree(d_next));

  std::vector<int> want(cells, 0);
  for (int i = 1; i <= kN; ++i) {
    for (int j = 1; j <= kN; ++j) {
      const int up = want[(i - 1) * (kN + 1) + j], left = want[i * (kN + 1) + j - 1];
      want[i * (kN + 1) + j] =
          a[i - 1] == b[j - 1] ? want[(i - 1) * (kN + 1) + j - 1] + 1 : (up > left ? up : left);
    }
  }
  for (int k = 0; k < cells; ++k) {
    if (got[k] != want[k]) {
      std::printf("wrong L(%d, %d): %d, expected %d\n", k / (kN + 1), k % (kN + 1), got[k], want[k]);
      return 1;
    }
  }
  std::printf("ok (LCS length %d)\n", got[cells - 1]);
  return 0;
}
