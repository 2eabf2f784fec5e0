// bytes_neighbours (clean): neighbouring bytes and halves of one 4-byte word written by threads
// of different warps, in global and shared memory, and neighbouring int4 elements written by
// different blocks. Byte-granular shadow memory must see no conflict. No race.
#include "checks.h"

constexpr int kThreads = 128;  // 4 warps
constexpr int kBlocks = 2;

__global__ void neighbours(char* c, short* h, int4* v, char* out) {
  __shared__ char sc[kThreads];
  __shared__ short sh[64];
  const int t = threadIdx.x, w = t / 32, lane = t % 32;
  // Byte w of word `lane` is written by warp w: each word by four warps.
  c[blockIdx.x * kThreads + lane * 4 + w] = static_cast<char>(t + 1);
  sc[lane * 4 + w] = static_cast<char>(t + 2);
  // Half (w & 1) of word `lane` (in two rows of 32 words) is written by warps w.
  h[blockIdx.x * kThreads + (w / 2) * 64 + lane * 2 + (w & 1)] = static_cast<short>(t + 3);
  if (t < 64) sh[lane * 2 + w] = static_cast<short>(t + 4);
  // Neighbouring 16-byte elements from the two blocks.
  if (t == 0) v[2 * lane + blockIdx.x] = make_int4(blockIdx.x, 1, 2, 3);
  __syncthreads();
  out[blockIdx.x * kThreads + t] = static_cast<char>(sc[t] + (t < 64 ? sh[t] : 0));
}

int main() {
  const int n = kThreads * kBlocks;
  char *c, *out;
  short* h;
  int4* v;
  CHECK(cudaMalloc(&c, n));
  CHECK(cudaMalloc(&out, n));
  CHECK(cudaMalloc(&h, n * sizeof(short)));
  CHECK(cudaMalloc(&v, 2 * sizeof(int4)));
  neighbours<<<kBlocks, kThreads>>>(c, h, v, out);
  CHECK_KERNEL();
  static char hc[n], hout[n];
  static short hh[n];
  int4 hv[2];
  CHECK(cudaMemcpy(hc, c, n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hout, out, n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hh, h, sizeof hh, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hv, v, sizeof hv, cudaMemcpyDeviceToHost));
  bool ok = hv[0].x == 0 && hv[1].x == 1 && hv[1].w == 3;
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) {
      const int w = t / 32, lane = t % 32;
      ok = ok && hc[b * kThreads + lane * 4 + w] == static_cast<char>(t + 1);
      ok = ok && hh[b * kThreads + (w / 2) * 64 + lane * 2 + (w & 1)] == static_cast<short>(t + 3);
      // sc[t] was written by thread (t % 4) * 32 + t / 4; sh[t] by thread (t % 2) * 32 + t / 2.
      const int sc_writer = (t % 4) * 32 + t / 4, sh_writer = (t % 2) * 32 + t / 2;
      const int want = static_cast<char>(sc_writer + 2) + (t < 64 ? static_cast<short>(sh_writer + 4) : 0);
      ok = ok && hout[b * kThreads + t] == static_cast<char>(want);
    }
  return verdict("bytes_neighbours", ok);
}
