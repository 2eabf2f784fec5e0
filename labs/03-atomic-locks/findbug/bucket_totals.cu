// Lab 03, find the bug: a table of buckets that collects keys and adds up their weights.
//
// Key k goes into bucket k % kBuckets. A bucket has a lock word (0 free, 1 taken), a count, room
// for kCapacity keys and the total weight of its keys, all in global memory. The threads share
// out the keys with a grid-stride loop. For each key a thread takes the bucket's lock with
// atomicCAS, in the loop shape that works for lanes of one warp under both warp models, and gives
// it back with atomicExch, fenced on both sides; the key is appended at position count, the count
// raised by one and the key's weight added to the total. The check recomputes every bucket on the
// host: the same count, the same keys in any order, the same total, and every lock free.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 64;
constexpr int kKeys = 200;
constexpr int kBuckets = 5;
constexpr int kCapacity = kKeys;  // room for every key in one bucket

struct Table {
  int locks[kBuckets];
  int counts[kBuckets];
  int totals[kBuckets];
  int items[kBuckets * kCapacity];
};

__device__ int weight_of(int key) { return key % 7 + 1; }

__global__ void insert_keys(const int* keys, int n, Table* t) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int key = keys[i];
    const int b = key % kBuckets;
    bool done = false;
    while (!done) {
      if (atomicCAS(&t->locks[b], 0, 1) == 0) {
        __threadfence();
        const int k = t->counts[b];
        t->items[b * kCapacity + k] = key;
        t->counts[b] = k + 1;
        __threadfence();
        atomicExch(&t->locks[b], 0);
        t->totals[b] += weight_of(key);
        done = true;
      }
    }
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  std::vector<int> keys(kKeys);
  for (int i = 0; i < kKeys; ++i) keys[i] = (i * 131 + 7) % 1000;

  int* d_keys = nullptr;
  Table* d_table = nullptr;
  CHECK(cudaMalloc(&d_keys, kKeys * sizeof(int)));
  CHECK(cudaMalloc(&d_table, sizeof(Table)));
  CHECK(cudaMemcpy(d_keys, keys.data(), kKeys * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_table, 0, sizeof(Table)));
  insert_keys<<<kBlocks, kThreads>>>(d_keys, kKeys, d_table);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Table t;
  CHECK(cudaMemcpy(&t, d_table, sizeof(Table), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(d_table));

  for (int b = 0; b < kBuckets; ++b) {
    std::vector<int> want;
    int want_total = 0;
    for (int key : keys)
      if (key % kBuckets == b) {
        want.push_back(key);
        want_total += key % 7 + 1;
      }
    if (t.locks[b] != 0) {
      std::printf("bucket %d: lock left taken (%d)\n", b, t.locks[b]);
      return 1;
    }
    if (t.counts[b] != int(want.size())) {
      std::printf("bucket %d: wrong count %d, expected %zu\n", b, t.counts[b], want.size());
      return 1;
    }
    std::vector<int> have(t.items + b * kCapacity, t.items + b * kCapacity + t.counts[b]);
    std::sort(have.begin(), have.end());
    std::sort(want.begin(), want.end());
    if (have != want) {
      std::printf("bucket %d: holds other keys than the host's table (a key lost or doubled)\n", b);
      return 1;
    }
    if (t.totals[b] != want_total) {
      std::printf("bucket %d: wrong total weight %d, expected %d\n", b, t.totals[b], want_total);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
