// PENDING (missed warp-level race). same_store_two_iterations: one warp runs a loop (not
// unrolled) whose only shared-memory store writes s[(lane + i) % 32]: in iteration 1 lane L
// writes the word that lane L+1 wrote in iteration 0. Nothing orders the lanes between
// iterations (no __syncwarp), so under independent thread scheduling the two writes race and the
// final contents depend on the schedule: a warp-level race (WARNING under its).
//
// Expected (--model its): SyncLab WARNING (race) at the marked line.
// Got: no report.
//
// Why: RaceDetector::check() skips any pair from the same warp at the same instruction
// (`same_warp && prev.loc == loc`), meant for the lanes of ONE execution of an instruction (all
// lanes writing one flag). It does not distinguish two dynamic executions of the instruction
// (loop iterations), which are as unordered as two different instructions.
//
// Run: synclab-run --model its -- ./same_store_two_iterations
#include "../checks.h"

__global__ void shifted(int* out, int iterations) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = 0;
  __syncwarp();
#pragma unroll 1
  for (int i = 0; i < iterations; ++i) s[(lane + i) % 32] = lane * 10 + i;  // EXPECT(race)
  __syncwarp();
  out[lane] = s[lane];
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  shifted<<<1, 32>>>(out, 2);
  CHECK_KERNEL();
  return verdict("same_store_two_iterations", true);
}
