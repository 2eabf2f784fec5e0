// Access patterns whose memory counters the simulator's profile (SYNCLAB_PROFILE) must give as a
// GPU's Nsight Compute does: coalesced, strided, misaligned, vector and broadcast global accesses,
// shared-memory accesses with and without bank conflicts, a matrix transpose through a tile with
// and without padding, atomics on one address and on many, and a divergent branch. Each kernel is
// launched once, in the order of kKernels. Built with nvcc for a GPU, the same program is what
// tests/profile/gpu-results/ was measured on (`ncu`, see run_ncu.sh); built with synclab-nvcc it
// runs on the simulator and tests/profile/compare.py checks the counts against those results.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

constexpr int kBlocks = 16, kThreads = 256, kN = kBlocks * kThreads;

// ---- global memory --------------------------------------------------------------------------------

__global__ void g_coalesced(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0f;
}

__global__ void g_stride2(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[2 * i] + 1.0f;
}

__global__ void g_stride32(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[32 * i] + 1.0f;
}

__global__ void g_offset1(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + 1] + 1.0f;
}

__global__ void g_float4(const float4* in, float4* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  v.x += 1.0f;
  out[i] = v;
}

__global__ void g_double(const double* in, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1.0;
}

__global__ void g_broadcast(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[blockIdx.x] + 1.0f;
}

__global__ void g_scatter_stride8(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[8 * i] = in[i] + 1.0f;
}

// ---- shared memory ------------------------------------------------------------------------------

__global__ void s_linear(const float* in, float* out) {
  __shared__ float s[kThreads];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = s[(t + 1) % kThreads];
}

__global__ void s_stride2(const float* in, float* out) {
  __shared__ float s[2 * kThreads];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[2 * t] = in[i];
  __syncthreads();
  out[i] = s[2 * ((t + 1) % kThreads)];
}

__global__ void s_stride32(const float* in, float* out) {
  __shared__ float s[32 * 32];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  // lanes of a warp 32 floats apart: every lane in bank 0
  if (t < 32) s[32 * t] = in[i];
  __syncthreads();
  if (t < 32) out[i] = s[32 * ((t + 1) % 32)];
}

__global__ void s_stride33(const float* in, float* out) {
  __shared__ float s[33 * 32];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < 32) s[33 * t] = in[i];
  __syncthreads();
  if (t < 32) out[i] = s[33 * ((t + 1) % 32)];
}

__global__ void s_broadcast(const float* in, float* out) {
  __shared__ float s[kThreads];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = s[(t / 32) * 32];  // one word per warp
}

__global__ void s_double(const double* in, double* out) {
  __shared__ double s[kThreads];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = s[(t + 1) % kThreads];
}

__global__ void s_float4(const float4* in, float4* out) {
  __shared__ float4 s[kThreads];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  out[i] = s[(t + 1) % kThreads];
}

// 32 x 32 tiles of a (32 * kTilesX) x 32 matrix, blocks of 32 x 8 threads.
constexpr int kTile = 32, kRows = 8;

template <int kPad>
__global__ void transpose(const float* in, float* out, int width) {
  __shared__ float tile[kTile][kTile + kPad];
  const int x = blockIdx.x * kTile + threadIdx.x, y0 = blockIdx.y * kTile;
  for (int j = threadIdx.y; j < kTile; j += kRows) tile[j][threadIdx.x] = in[(y0 + j) * width + x];
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x, oy0 = blockIdx.x * kTile;
  for (int j = threadIdx.y; j < kTile; j += kRows) out[(oy0 + j) * kTile * gridDim.y + ox] = tile[threadIdx.x][j];
}

// ---- atomics and divergence ---------------------------------------------------------------------

__global__ void a_one_address(unsigned* counters, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = atomicAdd(&counters[0], 1u);  // the result is used: atom, not red
}

__global__ void a_spread(unsigned* counters, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = atomicAdd(&counters[i % 64], 1u);
}

__global__ void d_half_warp(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (threadIdx.x % 2) {
    for (int k = 0; k < 16; ++k) v = v * 1.0001f + 0.5f;
  }
  out[i] = v;
}

int main() {
  const size_t big = size_t(kN) * 32 + 64;  // room for the widest stride
  float *fin, *fout;
  double *din, *dout;
  unsigned *counters, *uout;
  CHECK(cudaMalloc(&fin, big * sizeof(float)));
  CHECK(cudaMalloc(&fout, big * sizeof(float)));
  CHECK(cudaMalloc(&din, kN * sizeof(double)));
  CHECK(cudaMalloc(&dout, kN * sizeof(double)));
  CHECK(cudaMalloc(&counters, 64 * sizeof(unsigned)));
  CHECK(cudaMalloc(&uout, kN * sizeof(unsigned)));
  CHECK(cudaMemset(fin, 0, big * sizeof(float)));
  CHECK(cudaMemset(din, 0, kN * sizeof(double)));
  CHECK(cudaMemset(counters, 0, 64 * sizeof(unsigned)));

  g_coalesced<<<kBlocks, kThreads>>>(fin, fout);
  g_stride2<<<kBlocks, kThreads>>>(fin, fout);
  g_stride32<<<kBlocks, kThreads>>>(fin, fout);
  g_offset1<<<kBlocks, kThreads>>>(fin, fout);
  g_float4<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(fin), reinterpret_cast<float4*>(fout));
  g_double<<<kBlocks, kThreads>>>(din, dout);
  g_broadcast<<<kBlocks, kThreads>>>(fin, fout);
  g_scatter_stride8<<<kBlocks, kThreads>>>(fin, fout);
  s_linear<<<kBlocks, kThreads>>>(fin, fout);
  s_stride2<<<kBlocks, kThreads>>>(fin, fout);
  s_stride32<<<kBlocks, kThreads>>>(fin, fout);
  s_stride33<<<kBlocks, kThreads>>>(fin, fout);
  s_broadcast<<<kBlocks, kThreads>>>(fin, fout);
  s_double<<<kBlocks, kThreads>>>(din, dout);
  s_float4<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(fin), reinterpret_cast<float4*>(fout));
  const dim3 tiles(4, 4), rows(kTile, kRows);
  transpose<0><<<tiles, rows>>>(fin, fout, kTile * 4);
  transpose<1><<<tiles, rows>>>(fin, fout, kTile * 4);
  a_one_address<<<kBlocks, kThreads>>>(counters, uout);
  a_spread<<<kBlocks, kThreads>>>(counters, uout);
  d_half_warp<<<kBlocks, kThreads>>>(fin, fout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  unsigned c[64];
  CHECK(cudaMemcpy(c, counters, sizeof c, cudaMemcpyDeviceToHost));
  unsigned total = 0;
  for (unsigned v : c) total += v;
  // Each thread of the two atomic kernels added one.
  if (total != 2u * kN) {
    std::printf("FAIL: the counters hold %u, expected %d\n", total, 2 * kN);
    return 1;
  }
  std::printf("PASS: 20 kernels ran\n");
  return 0;
}
