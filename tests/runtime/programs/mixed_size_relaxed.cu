// One word written as an int and then read as one of its bytes: a mixed-size access, which the
// relaxed memory model does not cover. Under SYNCLAB_MEMORY=relaxed the run must say so (a
// warning naming the address) and give the right values; under sc there is nothing to say.
#include <cstdio>

#include "check.h"

__global__ void write_int_read_byte(int* word, unsigned char* out) {
  *reinterpret_cast<volatile int*>(word) = 0x01020304;
  *out = *reinterpret_cast<volatile unsigned char*>(word);  // the low byte (little-endian)
}

int main() {
  int* word;
  unsigned char* out;
  CHECK_OK(cudaMalloc(&word, sizeof(int)));
  CHECK_OK(cudaMalloc(&out, 1));
  write_int_read_byte<<<1, 1>>>(word, out);
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaDeviceSynchronize());
  unsigned char got = 0;
  CHECK_OK(cudaMemcpy(&got, out, 1, cudaMemcpyDeviceToHost));
  CHECK_OK(cudaFree(word));
  CHECK_OK(cudaFree(out));
  if (got != 0x04) {
    std::printf("FAIL mixed_size_relaxed: read 0x%02x, expected 0x04\n", got);
    return 1;
  }
  std::printf("PASS mixed_size_relaxed\n");
  return 0;
}
