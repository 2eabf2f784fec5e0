// Regression test (once a false alarm). release_sequence_scope_false_alarm: block 0 publishes `data` with a
// DEVICE-scope release (__threadfence, then atomicAdd on x: 0 -> 1). Block 1 waits for 1 and
// increments x again (1 -> 2) after a __threadfence_block() of its own, then raises `go`. Block 2
// waits for `go` (so that it never sees x == 1), reads x == 2, __threadfence(), and reads `data`.
//
// Block 1's atomicAdd is a read-modify-write: it continues the release sequence headed by block
// 0's release. Block 2's acquire pattern (volatile load reading 2, then __threadfence) reads a
// value of that release sequence, and both block 0's fence and block 2's fence have device scope
// (morally strong): block 0 synchronizes with block 2, and the read of `data` is ordered after
// the write. Block 1's block-scope fence is irrelevant (it only limits what block 1 itself
// releases). Correct under the PTX memory model.
//
// Expected: no report; exit 0 and PASS.
// Got: SyncLab ERROR (race): insufficient-scope read-after-write race on global memory,
// blaming block 1's __threadfence_block().
//
// Why: as release_sequence_scope_missed: the release state of x keeps only its latest writer's
// scope and block; block 1's RMW joined into it and set L.scope = cta, L.cta = 1, so block 2's
// read of x is a scope miss and block 0's (device-scope) release is dropped with it.
//
// Run: synclab-run -- ./release_sequence_scope_false_alarm
#include "checks.h"

__global__ void demote(int* data, int* x, int* go, int* out) {
  if (threadIdx.x != 0) return;
  volatile int* vx = x;
  volatile int* vgo = go;
  if (blockIdx.x == 0) {
    data[0] = 1;
    __threadfence();
    atomicAdd(x, 1);
  } else if (blockIdx.x == 1) {
    while (*vx != 1) {
    }
    __threadfence_block();
    atomicAdd(x, 1);
    *vgo = 1;
  } else {
    while (*vgo == 0) {
    }
    while (*vx != 2) {
    }
    __threadfence();
    out[0] = data[0];
  }
}

int main() {
  int *data, *x, *go, *out;
  int h = 0;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&x, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMalloc(&go, sizeof(int)));
  CHECK(cudaMemset(x, 0, sizeof(int)));
  CHECK(cudaMemset(go, 0, sizeof(int)));
  demote<<<3, 32>>>(data, x, go, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
  return verdict("release_sequence_scope_false_alarm", h == 1);
}
