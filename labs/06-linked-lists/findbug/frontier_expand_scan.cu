// Lab 06, find the bug: expanding a graph frontier into a worklist, one atomicAdd per block.
//
// The graph is in CSR form: vertex v's neighbours are adj[offsets[v] .. offsets[v + 1]). Every
// vertex is in the frontier; thread v pushes all of v's neighbours into the worklist next[0 .. *size)
// (*size starts at 0). Each block computes the exclusive prefix sum of its threads' degrees in
// shared memory (Hillis-Steele over two buffers, one barrier a level), thread 0 reserves the whole
// block's share with one atomicAdd on *size and leaves its start in block_start, and each thread
// writes its neighbours from block_start plus its prefix on. The check: *size is the sum of all
// degrees, and the worklist holds every vertex's neighbours, each block's in thread order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 64;
constexpr int kVertices = kBlocks * kThreads;

__global__ void expand_frontier(const int* offsets, const int* adj, int* next, int* size) {
  __shared__ int sums[2][kThreads];
  __shared__ int block_start;
  const int t = threadIdx.x;
  const int v = blockIdx.x * kThreads + t;
  const int first = offsets[v], degree = offsets[v + 1] - first;
  int from = 0;
  sums[from][t] = degree;
  __syncthreads();
  for (int off = 1; off < kThreads; off *= 2) {
    sums[1 - from][t] = sums[from][t] + (t >= off ? sums[from][t - off] : 0);
    __syncthreads();
    from = 1 - from;
  }
  const int before = sums[from][t] - degree;
  if (t == 0) block_start = atomicAdd(size, sums[from][kThreads - 1]);
  const int at = block_start + before;
  for (int j = 0; j < degree; ++j) next[at + j] = adj[first + j];
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
  std::vector<int> offsets(kVertices + 1, 0), adj;
  for (int v = 0; v < kVertices; ++v) {
    const int degree = (v * 7 + 3) % 6;  // 0 to 5
    for (int j = 0; j < degree; ++j) adj.push_back((v * 31 + j * 17 + 1) % kVertices);
    offsets[v + 1] = int(adj.size());
  }
  const int edges = int(adj.size());

  int *d_offsets = nullptr, *d_adj = nullptr, *next = nullptr, *size = nullptr;
  CHECK(cudaMalloc(&d_offsets, (kVertices + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_adj, edges * sizeof(int)));
  CHECK(cudaMalloc(&next, edges * sizeof(int)));
  CHECK(cudaMalloc(&size, sizeof(int)));
  CHECK(cudaMemcpy(d_offsets, offsets.data(), (kVertices + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_adj, adj.data(), edges * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(next, 0xff, edges * sizeof(int)));
  CHECK(cudaMemset(size, 0, sizeof(int)));
  expand_frontier<<<kBlocks, kThreads>>>(d_offsets, d_adj, next, size);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int got_size = 0;
  std::vector<int> got(edges);
  CHECK(cudaMemcpy(&got_size, size, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got.data(), next, edges * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_offsets));
  CHECK(cudaFree(d_adj));
  CHECK(cudaFree(next));
  CHECK(cudaFree(size));

  if (got_size != edges) {
    std::printf("wrong worklist size: %d, expected %d\n", got_size, edges);
    return 1;
  }
  // The blocks' shares may come in either order; each share is its block's neighbours in order.
  std::vector<std::vector<int>> shares(kBlocks);
  for (int b = 0; b < kBlocks; ++b)
    shares[b].assign(adj.begin() + offsets[b * kThreads], adj.begin() + offsets[(b + 1) * kThreads]);
  std::vector<int> order(kBlocks);
  for (int b = 0; b < kBlocks; ++b) order[b] = b;
  bool found = false;
  do {
    std::vector<int> want;
    for (int b : order) want.insert(want.end(), shares[b].begin(), shares[b].end());
    found = found || want == got;
  } while (!found && std::next_permutation(order.begin(), order.end()));
  if (!found) {
    int differ = 0;
    std::vector<int> a = adj, g = got;
    std::sort(a.begin(), a.end());
    std::sort(g.begin(), g.end());
    for (size_t i = 0; i < a.size(); ++i) differ += a[i] != g[i];
    std::printf("wrong worklist: not the blocks' neighbours in order (%d of %d differ as a multiset)\n",
                differ, edges);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
