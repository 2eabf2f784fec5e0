// warp_lost_update (race under both models): one warp counts keys into four shared bins with a
// plain `bins[k]++`. Lanes that meet the same bin store to one address in one instruction: only
// one lane's store takes effect, under lockstep and its alike (and on every GPU), so counts are
// lost. The report must say so and advise atomics.
//   -DFIX           atomicAdd: the advice applied; nothing is reported and the counts are right.
//   -DTRY_SYNCWARP  __syncwarp() after each increment: does not help (the lanes still collide in
//                   one instruction), and the report must not suggest it.
#include "checks.h"

constexpr int kKeys = 64;

__global__ void count(const int* keys, unsigned* out) {
  __shared__ unsigned bins[4];
  if (threadIdx.x < 4) bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < kKeys; i += blockDim.x) {
#ifdef FIX
    atomicAdd(&bins[keys[i] % 4], 1u);
#else
    bins[keys[i] % 4]++;  // EXPECT(race)
#endif
#ifdef TRY_SYNCWARP
    __syncwarp();
#endif
  }
  __syncthreads();
  if (threadIdx.x < 4) out[threadIdx.x] = bins[threadIdx.x];
}

int main() {
  int host[kKeys];
  unsigned want[4] = {0, 0, 0, 0};
  for (int i = 0; i < kKeys; ++i) {
    host[i] = (i * 7) % 5;  // uneven bins, computed here on the host as the reference
    ++want[host[i] % 4];
  }
  int* keys;
  unsigned* out;
  CHECK(cudaMalloc(&keys, sizeof host));
  CHECK(cudaMalloc(&out, 4 * sizeof(unsigned)));
  CHECK(cudaMemcpy(keys, host, sizeof host, cudaMemcpyHostToDevice));
  count<<<1, 32>>>(keys, out);
  CHECK_KERNEL();
  unsigned got[4];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < 4; ++b) ok &= got[b] == want[b];
  return verdict("warp_lost_update", ok);
}
