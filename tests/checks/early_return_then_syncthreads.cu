// Regression test (once a false sync report and a false deadlock under lockstep).
// early_return_then_syncthreads: the guard idiom `if (t >= n) return;` with n = 100 in blocks
// of 128 threads, followed by __syncthreads() among the remaining threads. Warp 3 keeps lanes 0-3
// and loses lanes 4-31. The PTX ISA: bar.sync waits for the NON-EXITED threads of the CTA, and
// "as threads exit, barriers waiting on all threads are checked ... if the exiting threads are
// holding up the barrier, the barrier is released". The returning threads exit, the barrier
// completes. No race either: each barrier orders the remaining threads' shared-memory exchange.
//
// Expected (both models, either SYNCLAB_LOCKSTEP_ORDER): no report; exit 0 and PASS.
// Got under --model lockstep: SyncLab ERROR (sync): "barrier divergence: __syncthreads() in
// divergent code ... lanes 0xfffffff0 are on another path", then SyncLab ERROR (deadlock).
//
// Why: the lanes that took the `return` branch jumped to the kernel's final `ret`, which was also
// the branch's reconvergence point, so they waited there for their warp-mates instead of exiting
// and held up the barrier. Now lanes that branch straight to a kernel-level ret/exit exit at the
// branch (as `@p EXIT` does on hardware), and a branch whose reconvergence point is such an
// instruction gets no reconvergence entry: its lanes exit when they reach it.
//
// Run: synclab-run --model lockstep -- ./early_return_then_syncthreads
#include "checks.h"

constexpr int kThreads = 128;
constexpr int kBlocks = 2;

__global__ void guarded(const int* in, int* out, int n) {
  __shared__ int s[kThreads];
  const int t = threadIdx.x;
  if (t >= n) return;
  s[t] = in[blockIdx.x * kThreads + t];
  __syncthreads();
  const int v = s[(t + 1) % n];
  __syncthreads();
  s[t] = v * 2;
  __syncthreads();
  out[blockIdx.x * kThreads + t] = s[(t + 5) % n];
}

int main() {
  const int n = 100;
  static int h_in[kThreads * kBlocks], h_out[kThreads * kBlocks];
  for (int i = 0; i < kThreads * kBlocks; ++i) h_in[i] = i;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  guarded<<<kBlocks, kThreads>>>(in, out, n);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < n; ++t) ok = ok && h_out[b * kThreads + t] == 2 * h_in[b * kThreads + ((t + 5) % n + 1) % n];
  return verdict("early_return_then_syncthreads", ok);
}
