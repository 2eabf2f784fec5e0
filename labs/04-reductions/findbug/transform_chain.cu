// Lab 04, find the bug: the product of a chain of 2x2 matrices, one chain per block.
//
// Block b composes the kThreads matrices m[b * n .. b * n + n) (n = blockDim.x, a power of two)
// in order: m[b n] * m[b n + 1] * ... * m[b n + n - 1], arithmetic modulo 2^32. The product is
// associative but not commutative, so the tree keeps neighbours together: each thread loads one
// matrix into the shared array s; then at every level (off = n / 2, n / 4, ..., 1) thread t < off
// combines the pair s[2t] * s[2t + 1] into s[t], so the partial products gather, in order, at the
// front of s; a __syncthreads() ends every level. Thread 0 writes s[0] to out[b]. The check
// multiplies every chain out on the host, left to right.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 2;
constexpr int kThreads = 128;

struct Mat2 {
  unsigned a, b, c, d;  // [a b; c d]
};

__host__ __device__ Mat2 mul(const Mat2& x, const Mat2& y) {
  return Mat2{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}

__global__ void chain_products(const Mat2* m, Mat2* out) {
  __shared__ Mat2 s[kThreads];
  const unsigned t = threadIdx.x;
  s[t] = m[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) s[t] = mul(s[2 * t], s[2 * t + 1]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  const int n = kBlocks * kThreads;
  std::vector<Mat2> chain(n);
  for (int i = 0; i < n; ++i)  // shears [1 k; 0 1] and [1 0; k 1]: no product collapses to 0
    chain[i] = i % 2 == 0 ? Mat2{1, unsigned(i % 5 + 1), 0, 1} : Mat2{1, 0, unsigned(i % 3 + 1), 1};

  Mat2 *d_chain = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_chain, n * sizeof(Mat2)));
  CHECK(cudaMalloc(&d_out, kBlocks * sizeof(Mat2)));
  CHECK(cudaMemcpy(d_chain, chain.data(), n * sizeof(Mat2), cudaMemcpyHostToDevice));
  chain_products<<<kBlocks, kThreads>>>(d_chain, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<Mat2> got(kBlocks);
  CHECK(cudaMemcpy(got.data(), d_out, kBlocks * sizeof(Mat2), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_chain));
  CHECK(cudaFree(d_out));

  for (int b = 0; b < kBlocks; ++b) {
    Mat2 want = chain[b * kThreads];
    for (int i = 1; i < kThreads; ++i) want = mul(want, chain[b * kThreads + i]);
    const Mat2& g = got[b];
    if (g.a != want.a || g.b != want.b || g.c != want.c || g.d != want.d) {
      std::printf("chain %d: wrong product [%u %u; %u %u], expected [%u %u; %u %u]\n", b, g.a, g.b, g.c, g.d,
                  want.a, want.b, want.c, want.d);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
