// relaxed_stale_spin_pct (clean): under the relaxed memory model with the pct scheduler, a thread
// that spins on a flag and reads an old value of it (the new one already in memory) must still get
// to run again and see the new one. Xiao and Feng's lock-free grid barrier (lab 07): block 0's
// first threads wait for every block's arrival flag, every block's thread 0 then waits for its
// departure flag. With seed 21, pct found block 0's waiting thread 3 spinning on a stale
// arrive[3] and ran it last, behind block 1's thread 0, which then spun on depart[1] for ever: no
// thread became a new spinner, so the hang check (which settles memory to its newest values)
// never ran, and the launch ended only when the step budget ran out. Now, under relaxed memory,
// the check also runs when nothing has changed for long, settles memory and makes every spinning
// thread show again that it spins, each in turn. The result is checked against the host.
#include <cstdio>

#include "checks.h"

constexpr int kBlocks = 4, kThreads = 64, kRounds = 2;

__device__ void grid_barrier(unsigned* arrive, unsigned* depart, unsigned round) {
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
      __threadfence();
    }
    __syncthreads();
    if (t < n) {
      __threadfence();
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

// Each round: write your value to a slot, meet at the barrier, mix in thread t of the next block.
__global__ void rounds(unsigned* arrive, unsigned* depart, unsigned* slots, unsigned* out) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;
  unsigned x = unsigned(i);
  for (int r = 0; r < kRounds; ++r) {
    unsigned* buf = slots + (r & 1) * n;
    buf[i] = x;
    grid_barrier(arrive, depart, unsigned(r + 1));
    x = x * 3u + buf[j];
  }
  out[i] = x;
}

int main() {
  constexpr int n = kBlocks * kThreads;
  unsigned *arrive, *depart, *slots, *out;
  CHECK(cudaMalloc(&arrive, kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&depart, kBlocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&slots, 2 * n * sizeof(unsigned)));
  CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
  CHECK(cudaMemset(arrive, 0, kBlocks * sizeof(unsigned)));
  CHECK(cudaMemset(depart, 0, kBlocks * sizeof(unsigned)));
  rounds<<<kBlocks, kThreads>>>(arrive, depart, slots, out);
  CHECK_KERNEL();
  unsigned got[n];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  unsigned x[n], next[n];
  for (int i = 0; i < n; ++i) x[i] = unsigned(i);
  for (int r = 0; r < kRounds; ++r) {
    for (int i = 0; i < n; ++i) next[i] = x[i] * 3u + x[(i + kThreads) % n];
    for (int i = 0; i < n; ++i) x[i] = next[i];
  }
  bool ok = true;
  for (int i = 0; i < n && ok; ++i)
    if (got[i] != x[i]) {
      std::printf("out[%d] = %u, expected %u\n", i, got[i], x[i]);
      ok = false;
    }
  CHECK(cudaFree(arrive));
  CHECK(cudaFree(depart));
  CHECK(cudaFree(slots));
  CHECK(cudaFree(out));
  return verdict("relaxed_stale_spin_pct", ok);
}
