// Lab 03, find the bug: threads of several blocks append their ids to one shared log.
//
// The log is an array of kBlocks x kThreads slots and a length, both in global memory, guarded
// by one spin lock (0 free, 1 taken). Every thread appends its global index once: holding the
// lock it reads the length, writes its index into that slot and stores the length plus one.
// The lock is taken with atomicCAS and given back with atomicExch, in the loop shape that works
// for lanes of one warp under both warp models. The check expects the length to be the number of
// threads and every index to appear in the log exactly once.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 3;
constexpr int kThreads = 64;

struct Log {
  int lock;    // 0 free, 1 taken
  int length;  // slots used
  int slots[kBlocks * kThreads];
};

__global__ void append_ids(Log* log) {
  const int me = blockIdx.x * blockDim.x + threadIdx.x;
  bool done = false;
  while (!done) {
    if (atomicCAS(&log->lock, 0, 1) == 0) {
      __threadfence();
      const int at = log->length;
      log->slots[at] = me;
      log->length = at + 1;
      atomicExch(&log->lock, 0);
      done = true;
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
  const int n = kBlocks * kThreads;
  Log* log = nullptr;
  CHECK(cudaMalloc(&log, sizeof(Log)));
  CHECK(cudaMemset(log, 0, sizeof(Log)));
  append_ids<<<kBlocks, kThreads>>>(log);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Log got;
  CHECK(cudaMemcpy(&got, log, sizeof(Log), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(log));

  if (got.lock != 0) {
    std::printf("lock left taken: %d, expected 0\n", got.lock);
    return 1;
  }
  if (got.length != n) {
    std::printf("wrong log length: %d, expected %d\n", got.length, n);
    return 1;
  }
  std::vector<int> seen(n, 0);
  for (int s = 0; s < n; ++s) {
    const int id = got.slots[s];
    if (id < 0 || id >= n) {
      std::printf("slot %d holds %d, not a thread index\n", s, id);
      return 1;
    }
    if (++seen[id] > 1) {
      std::printf("thread %d appears twice in the log (again at slot %d)\n", id, s);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
