// bench/lab07_barriers/lockfree_fences.cu: lab 07's lock-free barrier with four placements of
// block 0's fences (as the lab has them: each polling thread fences after its poll; after the
// __syncthreads(); after a __syncwarp(); one fence by thread 0), and the simple barrier, at 66
// blocks x 128 threads, 20 rounds per launch, the median of 200 launches (CUDA events), twice.
// Whether the lanes of block 0's polling warps, leaving their polls at different times, fence
// apart (the estimate charges one fence per warp).
//
//   nvcc -O3 -arch=sm_90 -o lockfree_fences bench/lab07_barriers/lockfree_fences.cu && ./lockfree_fences
//
// Written 2026-12-07 and compiled with nvcc 13.0; not yet run on a GPU (no device was lent that
// day), so it has no results.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

template <int V>
__device__ void lockfree(unsigned* arrive, unsigned* depart, unsigned round) {
  const unsigned t = threadIdx.x, n = gridDim.x;
  __syncthreads();
  if (t == 0) {
    __threadfence();
    *(volatile unsigned*)&arrive[blockIdx.x] = round;
  }
  if (blockIdx.x == 0) {
    if (t < n) {
      while (*(volatile unsigned*)&arrive[t] != round) {
      }
      if (V == 0) __threadfence();
    }
    if (V == 2) {
      __syncwarp();
      if (t < n) __threadfence();
    }
    __syncthreads();
    if (V == 1 && t < n) __threadfence();
    if (V == 4) {
      if (t == 0) __threadfence();
      __syncthreads();
    }
    if (t < n) {
      if (V != 4) __threadfence();
      *(volatile unsigned*)&depart[t] = round;
    }
  }
  if (t == 0) {
    while (*(volatile unsigned*)&depart[blockIdx.x] != round) {
    }
    __threadfence();
  }
  __syncthreads();
}

__device__ void simple(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < gridDim.x * round) {
    }
    __threadfence();
  }
  __syncthreads();
}

template <int V>
__global__ void run(unsigned* a, unsigned* d, unsigned* c, int rounds, unsigned base) {
  for (int r = 0; r < rounds; ++r) {
    if (V != 3)
      lockfree<V>(a, d, base + r + 1);
    else
      simple(c, base + r + 1);
  }
}

int main() {
  unsigned *a, *d, *c;
  cudaMalloc(&a, 4096);
  cudaMalloc(&d, 4096);
  cudaMalloc(&c, 4096);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const int blocks = 66, threads = 128, rounds = 20, reps = 200;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const char* names[] = {"lockfree fence after poll (lab)", "lockfree fence after __syncthreads",
                         "lockfree __syncwarp then fence", "simple", "lockfree one fence by thread 0 in block 0"};
  for (int sitting = 0; sitting < 2; ++sitting)
    for (int v = 0; v < 5; ++v) {
      std::vector<float> ms;
      unsigned base = 0;
      cudaMemset(a, 0, 4096);
      cudaMemset(d, 0, 4096);
      cudaMemset(c, 0, 4096);
      for (int i = 0; i < reps; ++i) {
        cudaEventRecord(e0);
        switch (v) {
          case 0: run<0><<<blocks, threads>>>(a, d, c, rounds, base); break;
          case 1: run<1><<<blocks, threads>>>(a, d, c, rounds, base); break;
          case 2: run<2><<<blocks, threads>>>(a, d, c, rounds, base); break;
          case 4: run<4><<<blocks, threads>>>(a, d, c, rounds, base); break;
          default: run<3><<<blocks, threads>>>(a, d, c, rounds, base); break;
        }
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t);
        base += rounds;
        if (cudaGetLastError() != cudaSuccess) {
          printf("error\n");
          return 1;
        }
      }
      std::sort(ms.begin(), ms.end());
      printf("sitting %d  %-40s median %.2f us per launch, %.3f us per round (p10 %.2f, p90 %.2f)\n", sitting, names[v],
             ms[reps / 2] * 1e3, ms[reps / 2] * 1e3 / rounds, ms[reps / 10] * 1e3, ms[reps * 9 / 10] * 1e3);
    }
  return 0;
}
