// barrier_backoff_pct (clean, pct): one block of 64 threads passes a cuda::barrier with a
// completion function four times. libcu++ builds that barrier from atomics (at every
// architecture), and a thread that arrives early waits in a polling loop with back-off that reads
// the clock (%globaltimer) on every pass. Under pct the launch must complete, as under rr and
// random: the scheduler learns that a waiter waits although the clock changes its registers (the
// spin check's fingerprint for "waiting" leaves out the registers the clock feeds,
// sim/exec/progress.cpp), and runs it last so that the others arrive. (It once ran until the step
// budget ended the launch.)
#include <cuda/barrier>

#include "checks.h"

struct Count {
  int* phases;
  __device__ void operator()() noexcept { *phases += 1; }
};

#pragma nv_diag_suppress static_var_with_dynamic_init  // init() constructs the barrier below
__global__ void four_phases(int* out) {
  __shared__ int phases;
  __shared__ cuda::barrier<cuda::thread_scope_block, Count> bar;
  if (threadIdx.x == 0) {
    phases = 0;
    init(&bar, blockDim.x, Count{&phases});
  }
  __syncthreads();
  for (int i = 0; i < 4; ++i) bar.arrive_and_wait();
  if (threadIdx.x == 0) *out = phases;
}

int main() {
  int* out;
  CHECK(cudaMalloc(&out, sizeof(int)));
  four_phases<<<1, 64>>>(out);
  CHECK_KERNEL();
  int phases = 0;
  CHECK(cudaMemcpy(&phases, out, sizeof phases, cudaMemcpyDeviceToHost));
  return verdict("barrier_backoff_pct", phases == 4);
}
