// Message passing under the relaxed memory model, for the viewer's memory-model marks: block 0
// stores data = 42, then raises flag; block 1 waits for the flag, then copies data into seen.
// Without fences (the default) nothing orders the two stores or the two loads, so some runs read
// the old data; with "fence" (argv[1]) a __threadfence() on each side forbids that; "sc" runs the
// unfenced program under SYNCLAB_MEMORY=sc. One launch per seed (argv[2] seeds of the random
// scheduler, default 64, SYNCLAB_MEMORY=relaxed); with SYNCLAB_TRACE all go into one trace.
// Prints the seeds whose reader saw data = 0.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <synclab/regions.h>
#include <synclab/sim_control.h>

struct Message {
  int data, flag, seen;
};

__global__ void message_passing(Message* m, int fence) {
  using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;
  if (blockIdx.x == 0) {
    m->data = 42;  // VIZ-DATA-STORE
    if (fence) __threadfence();
    Ref(m->flag).store(1, cuda::memory_order_relaxed);
  } else {
    while (Ref(m->flag).load(cuda::memory_order_relaxed) == 0) {
    }
    if (fence) __threadfence();
    m->seen = m->data;  // VIZ-DATA-LOAD
  }
}

int main(int argc, char** argv) {
  const int fence = argc > 1 && std::strcmp(argv[1], "fence") == 0;
  const bool sc = argc > 1 && std::strcmp(argv[1], "sc") == 0;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 64;
  Message* m = nullptr;
  if (cudaMalloc(&m, sizeof(Message)) != cudaSuccess) return 1;
  if (synclab_region(&m->data, 4, "data", "array", 1) != 0 || synclab_region(&m->flag, 4, "flag", "flags", 1) != 0 ||
      synclab_region(&m->seen, 4, "seen", "array", 1) != 0)
    return 1;
  synclab::sim::set_memory(sc ? "sc" : "relaxed");
  int old = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    synclab::sim::set_scheduler("random", uint64_t(seed));
    cudaMemset(m, 0, sizeof(Message));
    message_passing<<<2, 1>>>(m, fence);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    Message h;
    cudaMemcpy(&h, m, sizeof h, cudaMemcpyDeviceToHost);
    if (h.seen != 42) {
      std::printf("seed %d: the reader saw data = %d\n", seed, h.seen);
      ++old;
    }
  }
  std::printf("%d of %d runs read the old data (%s)\n", old, seeds, fence ? "with fences" : sc ? "no fence, sc" : "no fence");
  return 0;
}
