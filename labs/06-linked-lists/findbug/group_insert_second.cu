// Lab 06, find the bug: inserting items right after the header node of their group's list.
//
// Nodes live in a pool (item[i], next[i], lock[i]; a link is a node index, kNull ends a list). Nodes
// 0 .. kGroups-1 are the headers: list g starts at node g, which never leaves the front. Thread t
// inserts node kGroups + t, holding item 10 t + 1, as the second node of list t % kGroups, right
// after the header, under the header's own lock word (atomicCAS to take it, then a fence; a fence,
// then atomicExch to give it back). The check walks every list: it starts at its header, holds
// each of the group's items exactly once, has no cycle, and every lock is free.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kNull = -1;
constexpr int kGroups = 2;
constexpr int kBlocks = 2;
constexpr int kThreads = 40;

struct Pool {
  int* item;
  int* next;
  int* lock;
};

__device__ bool try_lock(int* lock) {
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();
  return true;
}

__device__ void unlock(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

// Links `node` in right after `header`.
__device__ void link_after(Pool pool, int header, int node) {
  pool.next[node] = pool.next[header];
  pool.next[header] = node;
}

__global__ void insert_items(Pool pool) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int header = t % kGroups;
  const int node = kGroups + t;
  pool.item[node] = 10 * t + 1;
  bool done = false;
  while (!done) {
    done = try_lock(&pool.lock[header]);
  }
  link_after(pool, header, node);
  unlock(&pool.lock[header]);
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
  const int threads = kBlocks * kThreads, nodes = kGroups + threads;
  std::vector<int> item(nodes, 0), next(nodes, kNull), lock(nodes, 0);
  int *d_item = nullptr, *d_next = nullptr, *d_lock = nullptr;
  CHECK(cudaMalloc(&d_item, nodes * sizeof(int)));
  CHECK(cudaMalloc(&d_next, nodes * sizeof(int)));
  CHECK(cudaMalloc(&d_lock, nodes * sizeof(int)));
  CHECK(cudaMemcpy(d_item, item.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_next, next.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_lock, lock.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));
  insert_items<<<kBlocks, kThreads>>>(Pool{d_item, d_next, d_lock});
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(item.data(), d_item, nodes * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(next.data(), d_next, nodes * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(lock.data(), d_lock, nodes * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_item));
  CHECK(cudaFree(d_next));
  CHECK(cudaFree(d_lock));

  std::vector<int> seen(nodes, 0);
  for (int g = 0; g < kGroups; ++g) {
    if (lock[g] != 0) {
      std::printf("lock of header %d still held after the launch (%d)\n", g, lock[g]);
      return 1;
    }
    int steps = 0;
    for (int node = next[g]; node != kNull; node = next[node]) {
      if (node < kGroups || node >= nodes || ++steps > threads) {
        std::printf("list %d is broken: a bad link or a cycle (at node %d)\n", g, node);
        return 1;
      }
      const int t = node - kGroups;
      if (t % kGroups != g || seen[node]++ > 0 || item[node] != 10 * t + 1) {
        std::printf("list %d holds node %d wrongly (group %d, seen %d times, item %d, expected %d)\n",
                    g, node, t % kGroups, seen[node], item[node], 10 * t + 1);
        return 1;
      }
    }
  }
  for (int node = kGroups; node < nodes; ++node) {
    if (seen[node] == 0) {
      std::printf("node %d (item %d) is in no list\n", node, 10 * (node - kGroups) + 1);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
