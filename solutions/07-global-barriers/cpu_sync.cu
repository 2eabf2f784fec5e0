// Lab 07, tasks 1 and 2: the CPU as the grid's barrier (seed 001, section IV). The end of a kernel
// is the one barrier every CUDA GPU gives the whole grid, so one launch per round is a correct
// global barrier; the question is what it costs.
//
// 1. cpu_explicit_rounds: launch a round, wait for it on the host (cudaDeviceSynchronize), launch
//    the next: every round pays a launch and a round trip to the host.
// 2. cpu_implicit_rounds: launch every round back to back in one stream: the stream still runs them
//    one after the other, but the host queues the next launch while the GPU runs this one.
#include "lab07_kernels.cuh"

namespace lab07 {

// Provided: one round of the exchange (lab07_kernels.cuh). Thread t of block b reads its own value
// and that of thread t of block (b + 1) % N, as the GPU barriers' exchange does.
__global__ void exchange_round(const unsigned* cur, unsigned* next, int round) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;
  next[i] = exchange_step(cur[i], cur[j], round);
}

// ---- 1 ------------------------------------------------------------------------------------------
unsigned* cpu_explicit_rounds(unsigned* a, unsigned* b, int blocks, int threads, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    exchange_round<<<blocks, threads>>>(a, b, r);
    cudaDeviceSynchronize();  // the host waits: this is the barrier
    unsigned* t = a;
    a = b;
    b = t;
  }
  return a;
}

// ---- 2 ------------------------------------------------------------------------------------------
unsigned* cpu_implicit_rounds(unsigned* a, unsigned* b, int blocks, int threads, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    exchange_round<<<blocks, threads>>>(a, b, r);  // the stream orders the launches
    unsigned* t = a;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace lab07
