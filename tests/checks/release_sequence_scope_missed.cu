// Regression test (once a missed race). release_sequence_scope_missed: block 0 publishes `data` with a
// BLOCK-scope release (__threadfence_block, then atomicAdd on x: 0 -> 1). Block 1 waits for 1,
// then does a device-scope release of its own (__threadfence, atomicAdd: 1 -> 2). Block 2 waits
// for 2, __threadfence(), and reads `data`.
//
// Under the PTX memory model block 2 is not ordered after block 0's write: block 0's release
// fence has .cta scope, which does not include blocks 1 or 2, so neither block 1's acquire (its
// fence after reading 1) nor block 2's (reading 2, which is in block 0's release sequence)
// synchronizes with it; block 1 never acquired block 0's write, so block 1's own release does not
// carry it either. The read races with the write: expected SyncLab ERROR (race), insufficient
// scope, on the marked lines. (Every access to x is a device-scope atomic or volatile access.)
//
// Got: no report.
//
// Why: the release state of an address (RaceDetector::LocSync) has ONE scope and ONE block,
// those of its latest writer. strong_write() with rmw joins block 1's snapshot into the state
// block 0 left and then sets L.scope = gpu, L.cta = 1: block 0's .cta-scoped knowledge is
// promoted to device scope and block 2 acquires it.
//
// Run: synclab-run -- ./release_sequence_scope_missed
#include "checks.h"

__global__ void promote(int* data, int* x, int* out) {
  if (threadIdx.x != 0) return;
  volatile int* vx = x;
  if (blockIdx.x == 0) {
    data[0] = 1;  // EXPECT(race)
    __threadfence_block();
    atomicAdd(x, 1);
  } else if (blockIdx.x == 1) {
    while (*vx != 1) {
    }
    __threadfence();
    atomicAdd(x, 1);
  } else {
    while (*vx != 2) {
    }
    __threadfence();
    out[0] = data[0];  // EXPECT(race)
  }
}

int main() {
  int *data, *x, *out;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&x, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(x, 0, sizeof(int)));
  promote<<<3, 32>>>(data, x, out);
  CHECK_KERNEL();
  return verdict("release_sequence_scope_missed", true);
}
