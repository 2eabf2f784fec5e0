// bench/lab07_barriers/line_crowd.cu: does a crowd of SMs polling (or storing to, or spinning
// atomics on) other words of one 128-byte line slow a hand-over through that line? (Lab 07's
// lock-free barrier grows 0.91 us a round from 1 to 64 blocks on an H100 with no atomic behind it:
// bench/results/gpu_latencies.md, 2026-12-06; lab 06's pushes under list locks that share a line
// took 4.7% longer than under node locks on separate lines on an H200. The estimate has no cost
// for many SMs' accesses to other words of one line.)
// Blocks 0 and 1 pass a token back and forth through two words of the line, either with volatile
// stores and polls (a __threadfence() before each store, as lab 07's barriers do) or with
// atomicExch and polls by atomicAdd(p, 0); K other blocks meanwhile poll, store to, fail an
// atomicCAS on, or atomicAdd to other words of the same line, or words of lines far away. Cycles
// per round trip, block 0's clock64, median of 5 launches.
//
//   nvcc -O3 -arch=sm_90 -o line_crowd bench/lab07_barriers/line_crowd.cu && ./line_crowd
//
// Results: bench/results/gpu_latencies.md, "2026-12-07 (23:48 UTC)" (a lent H100: polls of the
// line by up to 128 SMs cost the hand-over nothing; stores from 64 or more SMs into the line do).
#include <cstdio>
#include <algorithm>
#include <cuda_runtime.h>

constexpr int kRounds = 2000;

__global__ void crowd(unsigned* line, unsigned* far, int mode, bool atomic_pass, long long* out) {
  volatile unsigned* a = line;       // block 0 -> 1
  volatile unsigned* b = line + 16;  // block 1 -> 0 (same 128-byte line, another sector)
  volatile unsigned* stop = line + 64;
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    long long t0 = clock64();
    for (unsigned i = 1; i <= kRounds; ++i) {
      __threadfence();
      if (atomic_pass) {
        atomicExch(line, i);
        while (atomicAdd(line + 16, 0) != i) {
        }
      } else {
        *a = i;
        while (*b != i) {
        }
      }
    }
    long long t1 = clock64();
    out[0] = (t1 - t0) / kRounds;
    *stop = 1;
  } else if (blockIdx.x == 1) {
    for (unsigned i = 1; i <= kRounds; ++i) {
      if (atomic_pass) {
        while (atomicAdd(line, 0) != i) {
        }
        __threadfence();
        atomicExch(line + 16, i);
      } else {
        while (*a != i) {
        }
        __threadfence();
        *b = i;
      }
    }
  } else {
    // mode 1: poll a word of the hand-over's line; 2: poll a word of a far line; 3: store to a
    // word of the hand-over's line, over and over; 4: store to a far line; 5: a failing atomicCAS
    // on a word of the hand-over's line (a lock's waiter); 6: the same on a far line; 7: atomicAdd on
    // a word of the line; 8: atomicAdd on a far line.
    const bool near = mode == 1 || mode == 3 || mode == 5 || mode == 7;
    volatile unsigned* mine = near ? line + 1 + (blockIdx.x % 15) : far + 32 * blockIdx.x;
    unsigned* mine_rw = const_cast<unsigned*>(mine);
    unsigned s = 0;
    while (*stop == 0) {
      if (mode == 1 || mode == 2)
        s += *mine;
      else if (mode == 3 || mode == 4)
        *mine = s++;
      else if (mode == 5 || mode == 6)
        s += atomicCAS(mine_rw, 0xfffffffeu, 1u);
      else
        s += atomicAdd(mine_rw, 1u);
    }
    if (s == 0xffffffffu) out[1] = s;
  }
}

int main() {
  unsigned *line, *far;
  long long* out;
  cudaMalloc(&line, 4096);
  cudaMalloc(&far, 1 << 20);
  cudaMalloc(&out, 64);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  const char* names[] = {"alone",
                         "K poll the line",
                         "K poll far lines",
                         "K store to the line",
                         "K store to far lines",
                         "K CAS-fail on the line",
                         "K CAS-fail on far lines",
                         "K atomicAdd on the line",
                         "K atomicAdd on far lines"};
  for (int pass = 0; pass < 2; ++pass) {
    printf("hand-over by %s\n", pass ? "atomicExch and atomicAdd(p, 0) polls" : "volatile stores and polls");
    for (int mode = 0; mode < 9; ++mode)
      for (int K : {0, 8, 32, 64, 128}) {
        if ((mode == 0) != (K == 0)) continue;
        if (K + 2 > p.multiProcessorCount) continue;
        long long v[5];
        for (int r = 0; r < 5; ++r) {
          cudaMemset(line, 0, 4096);
          crowd<<<K + 2, 32>>>(line, far, mode, pass == 1, out);
          cudaDeviceSynchronize();
          cudaMemcpy(&v[r], out, 8, cudaMemcpyDeviceToHost);
        }
        std::sort(v, v + 5);
        printf("%-26s K=%3d: %lld cycles per round trip (min %lld, max %lld)\n", names[mode], K, v[2], v[0], v[4]);
      }
  }
  cudaError_t e = cudaGetLastError();
  printf("%s\n", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  return 0;
}
