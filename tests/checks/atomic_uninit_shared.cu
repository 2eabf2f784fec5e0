// Regression test (once a missed init report). atomic_uninit_shared: a block counts with atomicAdd on a
// __shared__ counter that no thread initialized. Shared memory starts undefined in every block,
// so the first atomicAdd reads garbage. The same mistake on cudaMalloc memory is reported (the
// global path treats an atomic as a read); see the second kernel, which is caught.
//
// Expected: SyncLab ERROR (init) at both marked lines.
// Got: only the global one (line of global_count); the shared atomic is silent.
//
// Why: KernelRun::check_access() marks shared bytes initialized for `write || atomic` and checks
// them only `if (!write)`; an atomic arrives with write=true, so it is never checked, while the
// global branch checks `!write || atomic`.
//
// Run: synclab-run -- ./atomic_uninit_shared
#include "checks.h"

__global__ void shared_count(const int* in, int* out) {
  __shared__ int count;
  if (in[threadIdx.x] > 0) atomicAdd(&count, 1);  // EXPECT(init)
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count;
}

__global__ void global_count(const int* in, int* count) {
  if (in[threadIdx.x] > 0) atomicAdd(count, 1);  // EXPECT(init)
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i % 3;
  int *in, *out, *count;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, 2 * sizeof(int)));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  shared_count<<<2, 64>>>(in, out);
  CHECK_KERNEL();
  global_count<<<1, 64>>>(in, count);
  CHECK_KERNEL();
  return verdict("atomic_uninit_shared", true);
}
