// last_block_fence_sc (race; clean with -DFIX): a grid sum done by the last block. Every block
// writes its partial, then takes a ticket with atomicAdd; the block that draws the last ticket adds
// the partials. The ticket is relaxed and orders nothing, so each side needs a fence: the writer's
// __threadfence() between its partial and its ticket, and the reader's after seeing the last
// ticket. Here the last block's thread 0 takes the ticket and shares it with __syncthreads(), and
// then every thread of the block fences and reads partials: race-free under the PTX memory model
// because fence.sc is ordered (Fence-SC order): the writer's fence must come before the reader's
// (the other order would put the reader's fence before the ticket it heard of), so the partial is
// before the read in causality order.
//   (default)        the reader does not fence: a race between a partial's write and its read.
//   -DFIX            fences on both sides: nothing is reported.
//   -DWRITER_NOFENCE the reader fences but the writers do not: still a race.
#include "checks.h"

constexpr int kBlocks = 4, kThreads = 32;

__global__ void last_block(int* partials, unsigned* ticket, int* out) {
  __shared__ unsigned drawn;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = blockIdx.x + 1;  // EXPECT(race)
#ifndef WRITER_NOFENCE
    __threadfence();
#endif
    drawn = atomicAdd(ticket, 1u);
  }
  __syncthreads();
  if (drawn != kBlocks - 1) return;
#if defined(FIX) || defined(WRITER_NOFENCE)
  __threadfence();
#endif
  if (threadIdx.x < kBlocks) {
    const int v = partials[threadIdx.x];  // EXPECT(race)
    atomicAdd(out, v);
  }
}

int main() {
  int *partials, *out;
  unsigned* ticket;
  CHECK(cudaMalloc(&partials, kBlocks * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  CHECK(cudaMemset(partials, 0, kBlocks * sizeof(int)));
  last_block<<<kBlocks, kThreads>>>(partials, ticket, out);
  CHECK_KERNEL();
  int got = 0;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  return verdict("last_block_fence_sc", got == 1 + 2 + 3 + 4);
}
