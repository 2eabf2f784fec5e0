// Regression test (once a missed race). block_atomics_across_blocks: four blocks count into ONE global counter
// with atomicAdd_block (atom.add.cta). A block-scope atomic is atomic only with respect to threads
// of its own block: two blocks' atom.cta on the same address are not morally strong, so under
// the PTX memory model they form a data race, and on a GPU updates from blocks on different SMs
// may be lost. (tests/fixtures/lock_block_scope.cu says the same of atomicCAS_block.)
//
// Expected: SyncLab ERROR (race) at the marked line, of insufficient scope (the fix is
// atomicAdd, device scope).
// Got: no report.
//
// Why: RaceDetector::check() returns "no race" for any atomic against any atomic
// (`(prev.flags & kAtomic) && (flags & kAtomic)`), and more generally for any two strong
// accesses, without looking at their scopes or blocks. Scope is only considered for
// release/acquire edges (strong_read/fence), not for whether two strong accesses conflict.
//
// Run: synclab-run -- ./block_atomics_across_blocks
#include "checks.h"

constexpr int kBlocks = 4;
constexpr int kThreads = 64;

__global__ void count(int* counter) {
  atomicAdd_block(counter, 1);  // EXPECT(race)
}

int main() {
  int* counter;
  int h = 0;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  count<<<kBlocks, kThreads>>>(counter);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(&h, counter, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("counter = %d (expected %d)\n", h, kBlocks * kThreads);
  return verdict("block_atomics_across_blocks", h == kBlocks * kThreads);
}
