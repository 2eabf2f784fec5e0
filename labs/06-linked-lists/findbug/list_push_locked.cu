// Lab 06, find the bug: pushing nodes onto a few linked lists, one lock per list.
//
// Nodes live in a pool (values[i], next[i]; a link is a node index, kNull ends a list). Thread g
// pushes node g, with the value 7 g + 3, at the head of list g % kLists, holding that list's lock
// word while it links the node in. A lock word is taken with atomicCAS (then a fence) and given
// back with atomicExch (after a fence); a lane that wins it finishes its push and gives it back
// inside the retry loop, so lanes of one warp never wait for each other. The check walks every
// list from its head: each node in its list exactly once, with its value, no cycle, every lock free.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kNull = -1;
constexpr int kLists = 3;
constexpr int kBlocks = 2;
constexpr int kThreads = 48;

__device__ bool try_lock(int* lock) {
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();
  return true;
}

__device__ void unlock(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void push_nodes(int* heads, int* locks, int* values, int* next) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  const int list = node % kLists;
  values[node] = 7 * node + 3;
  const int old_head = heads[list];
  bool done = false;
  while (!done) {
    if (try_lock(&locks[list])) {
      next[node] = old_head;
      heads[list] = node;
      unlock(&locks[list]);
      done = true;
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
  int *heads = nullptr, *locks = nullptr, *values = nullptr, *next = nullptr;
  CHECK(cudaMalloc(&heads, kLists * sizeof(int)));
  CHECK(cudaMalloc(&locks, kLists * sizeof(int)));
  CHECK(cudaMalloc(&values, n * sizeof(int)));
  CHECK(cudaMalloc(&next, n * sizeof(int)));
  CHECK(cudaMemset(heads, 0xff, kLists * sizeof(int)));  // kNull
  CHECK(cudaMemset(locks, 0, kLists * sizeof(int)));
  CHECK(cudaMemset(values, 0, n * sizeof(int)));
  CHECK(cudaMemset(next, 0xff, n * sizeof(int)));
  push_nodes<<<kBlocks, kThreads>>>(heads, locks, values, next);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> h(kLists), l(kLists), v(n), nx(n);
  CHECK(cudaMemcpy(h.data(), heads, kLists * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(l.data(), locks, kLists * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(v.data(), values, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nx.data(), next, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(heads));
  CHECK(cudaFree(locks));
  CHECK(cudaFree(values));
  CHECK(cudaFree(next));

  std::vector<int> seen(n, 0);
  for (int list = 0; list < kLists; ++list) {
    if (l[list] != 0) {
      std::printf("lock of list %d still held after the launch (%d)\n", list, l[list]);
      return 1;
    }
    int steps = 0;
    for (int node = h[list]; node != kNull; node = nx[node]) {
      if (node < 0 || node >= n || ++steps > n) {
        std::printf("list %d is broken: bad link or a cycle (at node %d)\n", list, node);
        return 1;
      }
      if (node % kLists != list || seen[node]++ > 0 || v[node] != 7 * node + 3) {
        std::printf("list %d holds node %d wrongly (list %d, seen %d times, value %d, expected %d)\n",
                    list, node, node % kLists, seen[node], v[node], 7 * node + 3);
        return 1;
      }
    }
  }
  int lost = 0, first_lost = -1;
  for (int node = 0; node < n; ++node)
    if (seen[node] == 0 && lost++ == 0) first_lost = node;
  if (lost > 0) {
    std::printf("%d of the %d pushed nodes lost (first: node %d)\n", lost, n, first_lost);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
