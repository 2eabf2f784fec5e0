// __device__ and __constant__ variables through cudaMemcpyToSymbol / FromSymbol (with offsets,
// async on a stream, device-to-device), cudaGetSymbolAddress and cudaGetSymbolSize. Expected
// values are computed on the host.
#include "check.h"

constexpr int kN = 64;
__device__ int table[kN];
__constant__ float scale[4];
namespace lab {
__device__ unsigned long long total;
}

__global__ void transform(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) {
    out[i] = int(table[i] * scale[i % 4]);
    table[i] += 1;
    atomicAdd(&lab::total, (unsigned long long)(long long)table[i]);
  }
}

int main() {
  int host[kN];
  for (int i = 0; i < kN; ++i) host[i] = 3 * i - 7;
  float s[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  CHECK_OK(cudaMemcpyToSymbol(table, host, sizeof host));
  CHECK_OK(cudaMemcpyToSymbol(scale, s, 2 * sizeof(float)));                       // first half
  CHECK_OK(cudaMemcpyToSymbol(scale, s + 2, 2 * sizeof(float), 2 * sizeof(float)));  // offset
  unsigned long long zero = 0;
  CHECK_OK(cudaMemcpyToSymbol(lab::total, &zero, sizeof zero));

  size_t size = 0;
  CHECK_OK(cudaGetSymbolSize(&size, table));
  CHECK_EQ_INT(size, sizeof host);
  CHECK_OK(cudaGetSymbolSize(&size, scale));
  CHECK_EQ_INT(size, sizeof s);

  int* out = nullptr;
  CHECK_OK(cudaMalloc(&out, sizeof host));
  transform<<<2, 32>>>(out);
  CHECK_OK(cudaGetLastError());
  int result[kN];
  CHECK_OK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) CHECK_EQ_INT(result[i], int(host[i] * s[i % 4]));

  int after[kN];
  CHECK_OK(cudaMemcpyFromSymbol(after, table, sizeof after));
  long long expect_total = 0;
  for (int i = 0; i < kN; ++i) {
    CHECK_EQ_INT(after[i], host[i] + 1);
    expect_total += host[i] + 1;
  }
  unsigned long long total = 0;
  CHECK_OK(cudaMemcpyFromSymbol(&total, lab::total, sizeof total));
  CHECK_EQ_INT((long long)total, expect_total);

  // Part of a symbol, at an offset.
  int middle[4];
  CHECK_OK(cudaMemcpyFromSymbol(middle, table, sizeof middle, 10 * sizeof(int)));
  for (int i = 0; i < 4; ++i) CHECK_EQ_INT(middle[i], host[10 + i] + 1);

  // Through the symbol's device address, with plain cudaMemcpy.
  int* addr = nullptr;
  CHECK_OK(cudaGetSymbolAddress((void**)&addr, table));
  CHECK_TRUE(addr != nullptr);
  int first = 0;
  CHECK_OK(cudaMemcpy(&first, addr, sizeof first, cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(first, host[0] + 1);

  // Device to device into a symbol, and asynchronously on a stream.
  CHECK_OK(cudaMemcpyToSymbol(table, out, sizeof host, 0, cudaMemcpyDeviceToDevice));
  cudaStream_t stream;
  CHECK_OK(cudaStreamCreate(&stream));
  int async_back[kN] = {};
  CHECK_OK(cudaMemcpyFromSymbolAsync(async_back, table, sizeof async_back, 0, cudaMemcpyDeviceToHost, stream));
  CHECK_OK(cudaStreamSynchronize(stream));
  for (int i = 0; i < kN; ++i) CHECK_EQ_INT(async_back[i], result[i]);
  CHECK_OK(cudaMemcpyToSymbolAsync(table, host, sizeof host, 0, cudaMemcpyHostToDevice, stream));
  CHECK_OK(cudaStreamSynchronize(stream));
  CHECK_OK(cudaMemcpyFromSymbol(after, table, sizeof after));
  for (int i = 0; i < kN; ++i) CHECK_EQ_INT(after[i], host[i]);
  CHECK_OK(cudaStreamDestroy(stream));

  // Out of range and wrong direction.
  CHECK_ERR(cudaMemcpyToSymbol(table, host, sizeof host, 4), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpyToSymbol(table, host, sizeof host + 4), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpyToSymbol(table, host, 4, 0, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  CHECK_OK(cudaFree(out));
  return finish("symbol_roundtrip");
}
