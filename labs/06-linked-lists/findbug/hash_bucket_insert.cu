// Lab 06, find the bug: inserting keys into a chained hash table with one lock per bucket.
//
// Entry e of the table's pool holds key[e] and next[e] (an entry index, kNull ends a chain).
// Bucket b has a chain (head[b]), the chain's length (size[b]) and a lock word (lock[b]), taken
// with a compare-and-swap (acquire) and given back with a store of 0 (release). Thread e inserts
// entry e, whose key is keys[e], at the head of the chain of bucket keys[e] % kBuckets and counts
// it in size[bucket], holding the lock, in a retry loop that a lane leaves only once it has
// inserted (lanes of one warp never wait for each other). The check walks every chain: each entry
// once, in the bucket of its key, and size[b] equal to the chain's length; every lock free.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kNull = -1;
constexpr int kBuckets = 5;
constexpr int kBlocks = 2;
constexpr int kThreads = 64;

struct Table {
  int* head;  // per bucket: the first entry of its chain
  int* lock;  // per bucket: 0 free, 1 held
  int* size;  // per bucket: the number of entries in its chain
  int* key;   // per entry
  int* next;  // per entry
};

using DeviceInt = cuda::atomic_ref<int, cuda::thread_scope_device>;

__device__ bool try_lock(int* lock) {
  int expected = 0;
  return DeviceInt(*lock).compare_exchange_strong(expected, 1, cuda::memory_order_acquire,
                                                  cuda::memory_order_relaxed);
}

__device__ void unlock(int* lock) { DeviceInt(*lock).store(0, cuda::memory_order_release); }

__global__ void insert_keys(const int* keys, Table table) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  const int k = keys[e];
  const int b = k % kBuckets;
  table.key[e] = k;
  bool inserted = false;
  while (!inserted) {
    if (try_lock(&table.lock[b])) {
      table.next[e] = table.head[b];
      table.head[b] = e;
      unlock(&table.lock[b]);
      table.size[b] += 1;
      inserted = true;
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
  const int n = kBlocks * kThreads;
  std::vector<int> keys(n);
  for (int e = 0; e < n; ++e) keys[e] = (e * 7919 + 13) % 1000;

  int *d_keys = nullptr, *head = nullptr, *lock = nullptr, *size = nullptr, *key = nullptr, *next = nullptr;
  CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
  CHECK(cudaMalloc(&head, kBuckets * sizeof(int)));
  CHECK(cudaMalloc(&lock, kBuckets * sizeof(int)));
  CHECK(cudaMalloc(&size, kBuckets * sizeof(int)));
  CHECK(cudaMalloc(&key, n * sizeof(int)));
  CHECK(cudaMalloc(&next, n * sizeof(int)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(head, 0xff, kBuckets * sizeof(int)));  // kNull
  CHECK(cudaMemset(lock, 0, kBuckets * sizeof(int)));
  CHECK(cudaMemset(size, 0, kBuckets * sizeof(int)));
  CHECK(cudaMemset(key, 0xff, n * sizeof(int)));
  CHECK(cudaMemset(next, 0xff, n * sizeof(int)));
  insert_keys<<<kBlocks, kThreads>>>(d_keys, Table{head, lock, size, key, next});
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> h(kBuckets), l(kBuckets), s(kBuckets), k(n), nx(n);
  CHECK(cudaMemcpy(h.data(), head, kBuckets * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(l.data(), lock, kBuckets * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), size, kBuckets * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(k.data(), key, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nx.data(), next, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int* p : {d_keys, head, lock, size, key, next}) CHECK(cudaFree(p));

  std::vector<int> seen(n, 0);
  int total = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (l[b] != 0) {
      std::printf("lock of bucket %d still held after the launch (%d)\n", b, l[b]);
      return 1;
    }
    int length = 0;
    for (int e = h[b]; e != kNull; e = nx[e]) {
      if (e < 0 || e >= n || length >= n) {
        std::printf("chain of bucket %d is broken: bad link or a cycle (at entry %d)\n", b, e);
        return 1;
      }
      if (seen[e]++ > 0 || k[e] != keys[e] || keys[e] % kBuckets != b) {
        std::printf("bucket %d holds entry %d wrongly (key %d, expected %d in bucket %d)\n",
                    b, e, k[e], keys[e], keys[e] % kBuckets);
        return 1;
      }
      ++length;
    }
    if (s[b] != length) {
      std::printf("wrong size of bucket %d: %d, but its chain holds %d entries\n", b, s[b], length);
      return 1;
    }
    total += length;
  }
  if (total != n) {
    std::printf("%d of the %d inserted entries lost\n", n - total, n);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
