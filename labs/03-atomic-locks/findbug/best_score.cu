// Lab 03, find the bug: the highest score of a grid and the lowest index that holds it.
//
// Every thread owns one score, scores[i] for its global index i, and offers it to one record in
// global memory: the best score so far and its index (kNoIndex before the first offer). An offer
// replaces the record when its score is higher, or equal with a lower index. The two words of
// the record change together, so an offer runs under the record's spin lock (0 free, 1 taken),
// taken with atomicCAS and given back with atomicExch, with a __threadfence() after taking it
// and before giving it back. The check compares the record with a scan of the scores on the
// host and expects the lock to be free at the end.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 64;
constexpr int kNoIndex = -1;

struct Best {
  int lock;   // 0 free, 1 taken
  int score;  // the best score offered so far
  int index;  // the lowest index that offered it, kNoIndex before the first offer
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

// Called with best->lock held.
__device__ void offer(Best* best, int score, int index) {
  const int held = best->score, at = best->index;
  const bool better = at == kNoIndex || score > held || (score == held && index < at);
  best->score = better ? score : held;
  best->index = better ? index : at;
}

__global__ void find_best(const int* scores, Best* best) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int score = scores[i];
  while (!try_lock(&best->lock)) {
  }
  offer(best, score, i);
  unlock(&best->lock);
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
  const int n = kBlocks * kThreads;
  std::vector<int> scores(n);
  for (int i = 0; i < n; ++i) scores[i] = (i * 37 + 11) % 61;  // every score appears two or three times

  int* d_scores = nullptr;
  Best* d_best = nullptr;
  CHECK(cudaMalloc(&d_scores, n * sizeof(int)));
  CHECK(cudaMalloc(&d_best, sizeof(Best)));
  CHECK(cudaMemcpy(d_scores, scores.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const Best empty{0, 0, kNoIndex};
  CHECK(cudaMemcpy(d_best, &empty, sizeof(Best), cudaMemcpyHostToDevice));
  find_best<<<kBlocks, kThreads>>>(d_scores, d_best);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Best got;
  CHECK(cudaMemcpy(&got, d_best, sizeof(Best), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_scores));
  CHECK(cudaFree(d_best));

  int want_index = 0;
  for (int i = 1; i < n; ++i)
    if (scores[i] > scores[want_index]) want_index = i;
  if (got.score != scores[want_index] || got.index != want_index) {
    std::printf("wrong best: score %d at index %d, expected score %d at index %d\n", got.score, got.index,
                scores[want_index], want_index);
    return 1;
  }
  if (got.lock != 0) {
    std::printf("lock left taken: %d, expected 0\n", got.lock);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
