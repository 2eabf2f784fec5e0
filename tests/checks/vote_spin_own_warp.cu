// vote_spin_own_warp (hang under both models): the warp loops while any of its lanes still has
// work, but lane 0 sets its "work left" again on every pass, so the vote never turns false. The
// loop reads no memory: its vote sees only the registers of lanes that all spin in it. The hang
// report must say that the loop reads no memory, show the loop's own line (not the line above
// it: the loop's test is code the compiler marks with line 0), and advise changing what the
// lanes vote on.
//   -DFIX  a lane's work is done after its first pass: the kernel completes, nothing is reported.
#include "checks.h"

__global__ void drain(int* passes) {
  int left = threadIdx.x == 0;  // lane 0 has one item of work
  int n = 0;
  while (__any_sync(0xffffffffu, left)) {  // EXPECT(hang)
#ifdef FIX
    left = 0;  // the item is done
#else
    left = threadIdx.x == 0;  // lane 0 looks at its item again, and again
#endif
    n = 1;
  }
  passes[threadIdx.x] = n;
}

int main() {
  int* passes;
  CHECK(cudaMalloc(&passes, 32 * sizeof(int)));
  CHECK(cudaMemset(passes, 0, 32 * sizeof(int)));
  drain<<<1, 32>>>(passes);
  CHECK_KERNEL();
  int got[32];
  CHECK(cudaMemcpy(got, passes, sizeof got, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 32; ++i) ok = ok && got[i] == 1;
  return verdict("vote_spin_own_warp", ok);
}
