// Lab 05, find the bug: an exclusive scan of each block's segment by Blelloch's up-sweep and down-sweep.
//
// The input is kBlocks segments of kThreads values (a power of two); block b scans segment b in the
// shared array s and thread t writes s[t] to out[b * kThreads + t]: the sum of values 0..t-1 of the
// segment (0 for t = 0). The up-sweep builds the reduction tree in place: at stride d the element
// at the end of each pair of d-blocks adds the end of the first. Then the root is cleared and the
// down-sweep walks back down: each node gives its value to its left child and the left child's old
// value plus its own to its right child. The check compares every segment with a host scan.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 128;

__global__ void exclusive_scan_segments(const int* in, int* out) {
  __shared__ int s[kThreads];
  const int n = blockDim.x, t = threadIdx.x, base = blockIdx.x * n;
  s[t] = in[base + t];
  for (int d = 1; d < n; d *= 2) {
    __syncthreads();
    const int i = (t + 1) * 2 * d - 1;
    if (i < n) s[i] += s[i - d];
  }
  if (t == 0) s[n - 1] = 0;
  for (int d = n / 2; d >= 1; d /= 2) {
    __syncthreads();
    const int i = (t + 1) * 2 * d - 1;
    if (i < n) {
      const int left = s[i - d];
      s[i - d] = s[i];
      s[i] += left;
    }
  }
  out[base + t] = s[t];
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
  std::vector<int> values(n);
  unsigned state = 12345u;
  for (int i = 0; i < n; ++i) {
    state = state * 1103515245u + 12345u;
    values[i] = int((state >> 16) % 50u);
  }

  int *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemcpy(in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0xff, n * sizeof(int)));
  exclusive_scan_segments<<<kBlocks, kThreads>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got(n);
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));

  for (int b = 0; b < kBlocks; ++b) {
    int before = 0;
    for (int t = 0; t < kThreads; ++t) {
      const int i = b * kThreads + t;
      if (got[i] != before) {
        std::printf("wrong exclusive scan: out[%d] (block %d, thread %d) is %d, expected %d\n",
                    i, b, t, got[i], before);
        return 1;
      }
      before += values[i];
    }
  }
  std::printf("ok\n");
  return 0;
}
