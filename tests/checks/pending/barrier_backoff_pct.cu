// PENDING (pct never finishes). barrier_backoff_pct: one block of 64 threads passes a
// cuda::barrier with a completion function four times. libcu++ builds that barrier from atomics
// (at every architecture), and a thread that arrives early waits in a polling loop with back-off
// that reads the clock (%globaltimer) on every pass.
//
// Expected (--sched pct, any seed, both models): the launch completes, as it does under rr and
// random, or a waiting thread is run last so that the others arrive.
// Got: under pct the launch runs until the step budget ends it ("no deadlock or spin was
// proven"); conformance 077_cuda_barrier_phases does the same under pct (compute_75 and sm_90).
//
// Why (suspected): the spin check fingerprints a loop head by all of the lane's registers
// (KernelRun::check_progress, sim/exec/progress.cpp); the back-off loop keeps the clock and the
// time elapsed in registers, so the fingerprint changes on every pass, the scheduler is never
// told that the thread waits (on_spin), and pct keeps running the waiter at the highest
// priority. A fingerprint without the clock-derived registers, for pct's waiting signal only
// (a delay loop on clock() must not be reported as a hang), would let it finish.
//
// Run: synclab-run --model its --sched pct --seed 1 -- ./barrier_backoff_pct
#include <cuda/barrier>

#include "../checks.h"

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
