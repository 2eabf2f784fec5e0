// PENDING (misleading report). warp_tail_volatile_handover_advice: the warp-synchronous tail of a
// reduction as it was written before Volta: warp 0 adds 64 values of volatile shared memory in
// place, vs[t] += vs[t + off] for off = 32, 16, ..., 1, with no __syncwarp(). Under independent
// thread scheduling lane t reads vs[t + off] while lane t + off writes it: a warp-level race,
// rightly reported as a WARNING at the marked line.
//
// Expected (--model its): SyncLab WARNING (race) at the marked line, whose advice says that the
// lanes of the warp need __syncwarp() between a step's reads and its writes (the -DFIX variant
// does exactly that and nothing is reported).
// Got: the WARNING, but its advice is the flag hand-over text ("the threads hand over through
// memory ... put __threadfence() before the store ... and after the read ...") followed by
// "__syncwarp() would not help here: the lanes are not at one point together", which is not true
// here: every lane of the warp reaches each __syncwarp() of the fix, and the fix is clean. A
// __threadfence() in the same places would not remove the report either. (labs/04-reductions,
// task 4b, meets this report: its wrong solution tests/labs/wrong/04-reductions/
// warp_tail_no_syncwarp.cu prints it, and the graded test adds a note.)
//
// Why: RaceChecker's description (sim/check/race_checker.cpp, the f.heard_gid1 branch) treats any
// volatile read of a word another lane wrote as a flag hand-over, and appends the __syncwarp()
// sentence for every warp-level (warning) race of that kind. The lanes here do meet at one point
// (the same straight-line code, all 32 lanes active); the plain warp-level text of the
// `else if (warning)` branch is the right advice.
//
// Run: synclab-run --model its -- ./warp_tail_volatile_handover_advice
//   -DFIX  __syncwarp() between each read and write: nothing is reported.
#include "../checks.h"

__global__ void tail(const int* in, int* out) {
  __shared__ int s[64];
  volatile int* vs = s;
  const int t = threadIdx.x;
  vs[t] = in[t];
  vs[t + 32] = in[t + 32];
  __syncwarp();
#ifdef FIX
  int v = vs[t];
  for (int off = 32; off > 0; off /= 2) {
    v += vs[t + off];
    __syncwarp();
    vs[t] = v;
    __syncwarp();
  }
#else
  vs[t] += vs[t + 32];
  vs[t] += vs[t + 16];  // EXPECT(race)
  vs[t] += vs[t + 8];   // EXPECT(race)
  vs[t] += vs[t + 4];
  vs[t] += vs[t + 2];
  vs[t] += vs[t + 1];
#endif
  if (t == 0) *out = vs[0];
}

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  tail<<<1, 32>>>(in, out);
  CHECK_KERNEL();
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  if (sum != 64 * 63 / 2) printf("sum %d, expected %d\n", sum, 64 * 63 / 2);
  return verdict("warp_tail_volatile_handover_advice", true);
}
