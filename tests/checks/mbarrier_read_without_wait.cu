// mbarrier_read_without_wait (race, both models; sm_90, cuda::barrier on an mbarrier): warp 0
// writes data and arrives on a block-scoped cuda::barrier; warp 1 arrives too and reads the data,
// but waits on the barrier only after the read. Arriving orders nothing for the arriving thread's
// later reads: only a wait that sees the phase complete (barrier.wait(token), mbarrier.try_wait)
// acquires what the others published. The race is reported between the write and the read.
//   -DFIX  the advice applied: wait for the phase before reading; nothing is reported.
#include <cuda/barrier>

#include "checks.h"

constexpr int kThreads = 64;

#pragma nv_diag_suppress static_var_with_dynamic_init  // init() sets the barrier up
__global__ void publish(int* out) {
  __shared__ int data[32];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int t = threadIdx.x;
  if (t == 0) init(&bar, kThreads);
  __syncthreads();
  if (t < 32) {
    data[t] = t * 7;  // EXPECT(race)
    bar.arrive_and_wait();
  } else {
    auto token = bar.arrive();
#ifdef FIX
    bar.wait(std::move(token));
    out[t - 32] = data[63 - t];
#else
    out[t - 32] = data[63 - t];  // EXPECT(race)
    bar.wait(std::move(token));
#endif
  }
}

int main() {
  int* out;
  int h[32];
  CHECK(cudaMalloc(&out, sizeof h));
  publish<<<1, kThreads>>>(out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  bool ok = true;
#ifdef FIX
  for (int i = 0; i < 32; ++i) ok = ok && h[i] == (31 - i) * 7;
#endif
  return verdict("mbarrier_read_without_wait", ok);
}
