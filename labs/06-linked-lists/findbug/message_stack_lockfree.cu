// Lab 06, find the bug: posting messages onto a shared stack without a lock, and peeking at its top.
//
// Message m is node m of a pool: text[m] (its payload, m * m + 1) and below[m] (the message under
// it; kNull ends the stack). Thread m posts message m: it writes the payload, links the node to the
// top it saw and swings *top to it with atomicCAS, linking again to the new top whenever another
// post got there first. Right after, the thread peeks: it reads *top (volatile, then a fence) and
// checks the payload of the message it finds there, counting in *bad_peeks each one that is not
// that message's payload. The check walks the stack from *top: every message once, each with its
// payload, no cycle, and no bad peek.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kNull = -1;
constexpr int kBlocks = 3;
constexpr int kThreads = 32;

__device__ int payload(int m) { return m * m + 1; }

__device__ void post(int* top, int* text, int* below, int m) {
  text[m] = payload(m);
  int seen = *(volatile int*)top;
  while (true) {
    below[m] = seen;
    const int old = atomicCAS(top, seen, m);
    if (old == seen) return;
    seen = old;
  }
}

__global__ void post_and_peek(int* top, int* text, int* below, int* bad_peeks) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  post(top, text, below, m);
  const int t = *(volatile int*)top;
  __threadfence();
  if (t != kNull && text[t] != payload(t)) atomicAdd(bad_peeks, 1);
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

int main() {
  const int n = kBlocks * kThreads;
  int *top = nullptr, *text = nullptr, *below = nullptr, *bad_peeks = nullptr;
  CHECK(cudaMalloc(&top, sizeof(int)));
  CHECK(cudaMalloc(&text, n * sizeof(int)));
  CHECK(cudaMalloc(&below, n * sizeof(int)));
  CHECK(cudaMalloc(&bad_peeks, sizeof(int)));
  CHECK(cudaMemset(top, 0xff, sizeof(int)));  // kNull
  CHECK(cudaMemset(text, 0, n * sizeof(int)));
  CHECK(cudaMemset(below, 0xff, n * sizeof(int)));
  CHECK(cudaMemset(bad_peeks, 0, sizeof(int)));
  post_and_peek<<<kBlocks, kThreads>>>(top, text, below, bad_peeks);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int t = kNull, bad = 0;
  std::vector<int> tx(n), bl(n);
  CHECK(cudaMemcpy(&t, top, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&bad, bad_peeks, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tx.data(), text, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bl.data(), below, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(top));
  CHECK(cudaFree(text));
  CHECK(cudaFree(below));
  CHECK(cudaFree(bad_peeks));

  if (bad != 0) {
    std::printf("%d of the %d peeks found a message on top without its payload\n", bad, n);
    return 1;
  }
  std::vector<int> seen(n, 0);
  int count = 0;
  for (int m = t; m != kNull; m = bl[m]) {
    if (m < 0 || m >= n || count >= n) {
      std::printf("the stack is broken: bad link or a cycle (at message %d)\n", m);
      return 1;
    }
    if (seen[m]++ > 0 || tx[m] != m * m + 1) {
      std::printf("message %d is on the stack wrongly (seen %d times, payload %d, expected %d)\n",
                  m, seen[m], tx[m], m * m + 1);
      return 1;
    }
    ++count;
  }
  if (count != n) {
    std::printf("%d of the %d posted messages lost\n", n - count, n);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
