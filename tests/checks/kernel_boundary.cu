// kernel_boundary (clean): kernel boundaries and host copies order device accesses.
//   write_all writes a buffer; read_reversed (next launch) reads it from other threads and blocks;
//   the host overwrites the buffer with cudaMemcpy; read_reversed reads it again;
//   add_atomic updates it with atomics; read_reversed reads it with plain loads.
// No race.
#include "checks.h"

constexpr int kThreads = 64;
constexpr int kBlocks = 2;
constexpr int n = kThreads * kBlocks;

__global__ void write_all(int* buf) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  buf[i] = i * 3;
}
__global__ void read_reversed(const int* buf, int* out) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  out[i] = buf[n - 1 - i];
}
__global__ void add_atomic(int* buf) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  atomicAdd(&buf[(i * 5) % n], 1);
}

int main() {
  static int h[n], host_data[n];
  int *buf, *out;
  CHECK(cudaMalloc(&buf, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  bool ok = true;
  write_all<<<kBlocks, kThreads>>>(buf);
  read_reversed<<<kBlocks, kThreads>>>(buf, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && h[i] == (n - 1 - i) * 3;
  for (int i = 0; i < n; ++i) host_data[i] = i * i;
  CHECK(cudaMemcpy(buf, host_data, sizeof host_data, cudaMemcpyHostToDevice));
  read_reversed<<<kBlocks, kThreads>>>(buf, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && h[i] == (n - 1 - i) * (n - 1 - i);
  add_atomic<<<kBlocks, kThreads>>>(buf);
  read_reversed<<<kBlocks, kThreads>>>(buf, out);
  CHECK_KERNEL();
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && h[i] == (n - 1 - i) * (n - 1 - i) + 1;
  return verdict("kernel_boundary", ok);
}
