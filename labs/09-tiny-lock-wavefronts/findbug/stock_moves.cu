// Lab 09, find the bug: stock moved between the shelves of a store, under the shelves' lock bits.
//
// The store has 2048 shelves, a count each, kept in shared memory by one block. Lane 0 of each of
// the 8 warps makes kMoves moves from its list: move m of warp w takes amount[w][m] items from shelf
// from[w][m] to shelf to[w][m], holding the lock bits of both shelves while it changes them. A
// shelf's lock bit is chosen by address bits 2-11 of its count (1024 bits, emulating Fermi's lock
// unit in 32 shared words), so shelves s and s + 1024 share one bit; a move between two shelves that
// share a bit takes that bit once. The check compares every shelf's final count with the counts
// the host computes from the same moves (their order does not change the result).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kShelves = 2048;
constexpr int kWarps = 8;
constexpr int kMoves = 6;

struct LockTable {
  unsigned word[32];
};

__device__ unsigned bit_of(const int* p) { return unsigned(reinterpret_cast<uintptr_t>(p) >> 2) & 1023u; }

// Waits until the calling thread holds the bit of p (acquire).
__device__ void lock(LockTable& t, const int* p) {
  const unsigned b = bit_of(p), mask = 1u << (b & 31);
  while (atomicOr(&t.word[b >> 5], mask) & mask) {
  }
  __threadfence_block();
}

// Releases the bit of p (release).
__device__ void unlock(LockTable& t, const int* p) {
  const unsigned b = bit_of(p);
  __threadfence_block();
  atomicAnd(&t.word[b >> 5], ~(1u << (b & 31)));
}

// from, to, amount: kWarps x kMoves each. stock: kShelves counts, updated in place.
__global__ void stock_moves(const int* from, const int* to, const int* amount, int* stock) {
  __shared__ LockTable locks;
  __shared__ int shelf[kShelves];
  for (int s = int(threadIdx.x); s < kShelves; s += int(blockDim.x)) shelf[s] = stock[s];
  for (int w = int(threadIdx.x); w < 32; w += int(blockDim.x)) locks.word[w] = 0;
  __syncthreads();

  const int warp = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    for (int m = 0; m < kMoves; ++m) {
      const int k = warp * kMoves + m;
      int* src = &shelf[from[k]];
      int* dst = &shelf[to[k]];
      int* first = src < dst ? src : dst;
      int* second = first == src ? dst : src;
      const bool shared_bit = bit_of(src) == bit_of(dst);
      lock(locks, first);
      if (!shared_bit) lock(locks, second);
      *src -= amount[k];
      *dst += amount[k];
      if (!shared_bit) unlock(locks, second);
      unlock(locks, first);
    }
  }

  __syncthreads();
  for (int s = int(threadIdx.x); s < kShelves; s += int(blockDim.x)) stock[s] = shelf[s];
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
  const int n = kWarps * kMoves;
  std::vector<int> from(n), to(n), amount(n), stock(kShelves);
  for (int s = 0; s < kShelves; ++s) stock[s] = 1000 + s % 37;
  for (int w = 0; w < kWarps; ++w) {
    for (int m = 0; m < kMoves; ++m) {
      const int k = w * kMoves + m, base = 4 * (m % 3) + w / 2;
      if (m == kMoves - 1) {  // two shelves 1024 apart
        from[k] = base + 1024 * (w % 2);
        to[k] = base + 1024 * (1 - w % 2);
      } else if (w % 2 == 0) {
        from[k] = base;
        to[k] = base + 1025;
      } else {
        from[k] = base + 1;
        to[k] = base + 1024;
      }
      if (m % 2 == 1) std::swap(from[k], to[k]);
      amount[k] = 1 + (w * 5 + m * 3) % 11;
    }
  }

  int *d_from = nullptr, *d_to = nullptr, *d_amount = nullptr, *d_stock = nullptr;
  CHECK(cudaMalloc(&d_from, n * sizeof(int)));
  CHECK(cudaMalloc(&d_to, n * sizeof(int)));
  CHECK(cudaMalloc(&d_amount, n * sizeof(int)));
  CHECK(cudaMalloc(&d_stock, kShelves * sizeof(int)));
  CHECK(cudaMemcpy(d_from, from.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_to, to.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_amount, amount.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_stock, stock.data(), kShelves * sizeof(int), cudaMemcpyHostToDevice));
  stock_moves<<<1, 32 * kWarps>>>(d_from, d_to, d_amount, d_stock);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kShelves);
  CHECK(cudaMemcpy(got.data(), d_stock, kShelves * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_from));
  CHECK(cudaFree(d_to));
  CHECK(cudaFree(d_amount));
  CHECK(cudaFree(d_stock));

  for (int k = 0; k < n; ++k) {
    stock[from[k]] -= amount[k];
    stock[to[k]] += amount[k];
  }
  for (int s = 0; s < kShelves; ++s) {
    if (got[s] != stock[s]) {
      std::printf("wrong count on shelf %d: %d, expected %d\n", s, got[s], stock[s]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
