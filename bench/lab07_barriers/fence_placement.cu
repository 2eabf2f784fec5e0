// Lab 07's lock-free barrier with the master block's fence in four places, and the simple barrier
// beside them (bench/results/gpu_latencies.md, "2026-12-07 (23:48 UTC)": the numbers of this
// program's run on an H100, gpu_latencies-logs/2026-12-07-2348-h100-lf_variants.txt). The barrier
// is the lab's reference (solutions/07-global-barriers/gpu_barriers.cu, task 5), written again here
// with a template parameter for where block 0 fences after its threads' polls of arrive[]:
//   V = 0  each polling thread right after its poll, as the lab's reference does
//   V = 1  every thread after the __syncthreads() that follows the polls
//   V = 2  after a __syncwarp(), each polling thread
//   V = 4  thread 0 alone, before the __syncthreads()
//   V = 3  the simple barrier (task 3) instead
// 66 blocks x 128 threads, 20 rounds a launch; the median of REPS launches' times (CUDA events), in
// two sittings in one process.
//
//   nvcc -O3 -arch=sm_90 -o fence_placement bench/lab07_barriers/fence_placement.cu
//   ./fence_placement [REPS]        (default 200; on the simulator, 1, with SYNCLAB_PROFILE for
//                                    each variant's estimated time)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

template <int V>
__device__ void lockfree(unsigned* arrive, unsigned* depart, unsigned round) {
  const unsigned t = threadIdx.x, n = gridDim.x;
  __syncthreads();
  if (t == 0) { __threadfence(); *(volatile unsigned*)&arrive[blockIdx.x] = round; }
  if (blockIdx.x == 0) {
    if (t < n) {
      while (*(volatile unsigned*)&arrive[t] != round) {}
      if (V == 0) __threadfence();
    }
    if (V == 2) { __syncwarp(); if (t < n) __threadfence(); }
    __syncthreads();
    if (V == 1 && t < n) __threadfence();
    if (V == 4) { if (t == 0) __threadfence(); __syncthreads(); }
    if (t < n) { if (V != 4) __threadfence(); *(volatile unsigned*)&depart[t] = round; }
  }
  if (t == 0) { while (*(volatile unsigned*)&depart[blockIdx.x] != round) {} __threadfence(); }
  __syncthreads();
}

__device__ void simple(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < gridDim.x * round) {}
    __threadfence();
  }
  __syncthreads();
}

template <int V>
__global__ void run(unsigned* a, unsigned* d, unsigned* c, int rounds, unsigned base) {
  for (int r = 0; r < rounds; ++r) {
    if (V != 3) lockfree<V>(a, d, base + r + 1); else simple(c, base + r + 1);
  }
}

int main(int argc, char** argv) {
  unsigned *a, *d, *c;
  cudaMalloc(&a, 4096); cudaMalloc(&d, 4096); cudaMalloc(&c, 4096);
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const int blocks = 66, threads = 128, rounds = 20, reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char* names[] = {"lockfree fence after poll (lab)", "lockfree fence after __syncthreads", "lockfree __syncwarp then fence", "simple", "lockfree one fence by thread 0 in block 0"};
  for (int sitting = 0; sitting < 2; ++sitting)
  for (int v = 0; v < 5; ++v) {
    std::vector<float> ms;
    unsigned base = 0;
    cudaMemset(a, 0, 4096); cudaMemset(d, 0, 4096); cudaMemset(c, 0, 4096);
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(e0);
      switch (v) {
        case 0: run<0><<<blocks, threads>>>(a, d, c, rounds, base); break;
        case 1: run<1><<<blocks, threads>>>(a, d, c, rounds, base); break;
        case 2: run<2><<<blocks, threads>>>(a, d, c, rounds, base); break;
        case 4: run<4><<<blocks, threads>>>(a, d, c, rounds, base); break;
        default: run<3><<<blocks, threads>>>(a, d, c, rounds, base); break;
      }
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float t; cudaEventElapsedTime(&t, e0, e1); ms.push_back(t);
      base += rounds;
      if (cudaGetLastError() != cudaSuccess) { printf("error\n"); return 1; }
    }
    std::sort(ms.begin(), ms.end());
    printf("sitting %d  %-40s median %.2f us per launch, %.3f us per round (p10 %.2f, p90 %.2f)\n", sitting, names[v],
           ms[reps / 2] * 1e3, ms[reps / 2] * 1e3 / rounds, ms[reps / 10] * 1e3, ms[reps * 9 / 10] * 1e3);
  }
  return 0;
}
