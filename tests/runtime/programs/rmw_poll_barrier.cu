// rmw_poll_barrier: a grid barrier whose waiting blocks poll the generation word with an atomic
// (atomicAdd(generation, 0)) instead of a load, under SYNCLAB_MEMORY=relaxed. Every poll is a
// read-modify-write, so the word's history fills up with the polls' writes. The barrier is right
// under the PTX memory model (the polls are morally strong with the releasing store, so each reads
// the newest value once it is there, and atomicity keeps its write next to what it read): every
// launch must end, with the generation counted once per round. The relaxed model once let a poll
// read the oldest message of a full history, which is dropped before the poll's write is placed:
// the write went to the end, after the release, and the barrier hung (the oracle,
// SYNCLAB_MEMORY_CHECK=1, reported the broken atomicity). Prints "PASS" when both launches end
// with the right counts.
#include <cstdio>

#include "check.h"

__device__ void barrier(unsigned* state) {
  unsigned* count = &state[0];
  unsigned* generation = &state[1];
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned mine = *(volatile unsigned*)generation;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      __threadfence();
      *(volatile unsigned*)count = 0;
      __threadfence();
      *(volatile unsigned*)generation = mine + 1;
    } else {
      while (atomicAdd(generation, 0u) == mine) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

__global__ void rounds(unsigned* state, int n) {
  for (int r = 0; r < n; ++r) barrier(state);
}

int main() {
  unsigned* state = nullptr;
  CHECK_OK(cudaMalloc(&state, 2 * sizeof(unsigned)));
  CHECK_OK(cudaMemset(state, 0, 2 * sizeof(unsigned)));
  // 8 blocks of 32 threads, all resident at once (the test runs on the simulated H100).
  rounds<<<8, 32>>>(state, 2);
  CHECK_OK(cudaDeviceSynchronize());
  rounds<<<8, 32>>>(state, 3);
  CHECK_OK(cudaDeviceSynchronize());
  unsigned h[2] = {9, 9};
  CHECK_OK(cudaMemcpy(h, state, sizeof h, cudaMemcpyDeviceToHost));
  if (h[0] != 0 || h[1] != 5) {
    std::printf("FAIL rmw_poll_barrier: count %u generation %u, expected 0 and 5\n", h[0], h[1]);
    return 1;
  }
  std::printf("PASS rmw_poll_barrier\n");
  return 0;
}
