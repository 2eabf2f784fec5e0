// Lab 07, find the bug: two signals blurred by one launch per step, then mixed by a last launch.
//
// Signals a and b have n values each. A blur step is one launch of blur_step: every value becomes
// (left + 2 x self + right) / 4 of the step before (the ends repeat their edge value), read from
// one buffer and written to the other, so the end of a launch is the barrier between one step and
// the next (the CPU as the barrier). Signal a is blurred kStepsA times by launches queued in
// stream sa, signal b kStepsB times in stream sb, so the two chains may run side by side; then one
// launch of mix, queued in sa, writes out[i] = 3 x a[i] + b[i] from both blurred signals.
// queue_launches queues the launches; main waits for them at the end. The check compares out with
// the same blurs and mix computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kN = 256;
constexpr int kThreads = 64;
constexpr int kStepsA = 1;
constexpr int kStepsB = 4;

__global__ void blur_step(const int* cur, int* next, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int left = cur[i > 0 ? i - 1 : 0], right = cur[i < n - 1 ? i + 1 : n - 1];
  next[i] = (left + 2 * cur[i] + right) / 4;
}

__global__ void mix(const int* a, const int* b, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * a[i] + b[i];
}

// a and b: two buffers of n ints each, buffer 0 holding the signal; the blurred signal ends in
// buffer steps % 2. Queues every launch and returns the first launch error.
cudaError_t queue_launches(int* a[2], int* b[2], int* out, int n, cudaStream_t sa, cudaStream_t sb) {
  const int blocks = (n + kThreads - 1) / kThreads;
  for (int s = 0; s < kStepsA; ++s) blur_step<<<blocks, kThreads, 0, sa>>>(a[s % 2], a[(s + 1) % 2], n);
  for (int s = 0; s < kStepsB; ++s) blur_step<<<blocks, kThreads, 0, sb>>>(b[s % 2], b[(s + 1) % 2], n);
  mix<<<blocks, kThreads, 0, sa>>>(a[kStepsA % 2], b[kStepsB % 2], out, n);
  return cudaGetLastError();
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

std::vector<int> blurred(std::vector<int> v, int steps) {
  const int n = int(v.size());
  for (int s = 0; s < steps; ++s) {
    std::vector<int> next(n);
    for (int i = 0; i < n; ++i) {
      next[i] = (v[i > 0 ? i - 1 : 0] + 2 * v[i] + v[i < n - 1 ? i + 1 : n - 1]) / 4;
    }
    v = next;
  }
  return v;
}

int main() {
  std::vector<int> ha(kN), hb(kN);
  for (int i = 0; i < kN; ++i) {
    ha[i] = (i * 37) % 200;
    hb[i] = (i % 16) * 100;
  }
  int *a[2], *b[2], *out = nullptr;
  for (int k = 0; k < 2; ++k) {
    CHECK(cudaMalloc(&a[k], kN * sizeof(int)));
    CHECK(cudaMalloc(&b[k], kN * sizeof(int)));
    CHECK(cudaMemset(a[k], 0, kN * sizeof(int)));
    CHECK(cudaMemset(b[k], 0, kN * sizeof(int)));
  }
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMemcpy(a[0], ha.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b[0], hb.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t sa, sb;
  CHECK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
  CHECK(queue_launches(a, b, out, kN, sa, sb));
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(kN);
  CHECK(cudaMemcpy(got.data(), out, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaStreamDestroy(sa));
  CHECK(cudaStreamDestroy(sb));
  for (int k = 0; k < 2; ++k) {
    CHECK(cudaFree(a[k]));
    CHECK(cudaFree(b[k]));
  }
  CHECK(cudaFree(out));

  const std::vector<int> wa = blurred(ha, kStepsA), wb = blurred(hb, kStepsB);
  for (int i = 0; i < kN; ++i) {
    if (got[i] != 3 * wa[i] + wb[i]) {
      std::printf("wrong mix at %d: %d, expected %d\n", i, got[i], 3 * wa[i] + wb[i]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
