// counter_beside_atomics: threads of two blocks update a tally with atomicAdd and, on another
// line, a global counter with a plain `firsts[k] += 1`. The atomics on the tally connect the
// threads (one reads what another's atomicAdd wrote), which looks like a hand-over; the race on
// the counter is still a lost update, and the report must say so first and advise one atomic
// operation (a ballot count of lab 01's find-the-bug pool). -DFIX applies that advice (atomicAdd),
// and then nothing is reported.
#include "checks.h"

__global__ void tally(const int* votes, unsigned* points, unsigned* firsts) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&points[votes[v] % 4], 1u);
#ifdef FIX
  atomicAdd(&firsts[votes[v] % 2], 1u);
#else
  firsts[votes[v] % 2] += 1u;  // EXPECT(race)
#endif
}

int main() {
  int* votes;
  unsigned *points, *firsts;
  CHECK(cudaMalloc(&votes, 128 * sizeof(int)));
  CHECK(cudaMalloc(&points, 4 * sizeof(unsigned)));
  CHECK(cudaMalloc(&firsts, 2 * sizeof(unsigned)));
  int h[128];
  for (int i = 0; i < 128; ++i) h[i] = (i * 7) % 5;
  CHECK(cudaMemcpy(votes, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(points, 0, 4 * sizeof(unsigned)));
  CHECK(cudaMemset(firsts, 0, 2 * sizeof(unsigned)));
  tally<<<2, 64>>>(votes, points, firsts);
  CHECK_KERNEL();
  unsigned got[2];
  CHECK(cudaMemcpy(got, firsts, sizeof got, cudaMemcpyDeviceToHost));
  if (got[0] + got[1] != 128) printf("%u counted, expected 128 (updates lost)\n", got[0] + got[1]);
  return verdict("counter_beside_atomics", true);
}
