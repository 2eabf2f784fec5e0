// bytes_int_over_char (race): warp 0 writes a whole 4-byte word while warp 1 writes one byte of
// it (global and shared memory), unordered: the 4-byte write overlaps the 1-byte write (ERROR,
// both models).
#include "checks.h"

__global__ void int_over_char(int* words) {
  __shared__ int s[2];
  const int t = threadIdx.x;
  if (t < 2) s[t] = 0;
  __syncthreads();
  if (t == 0) {
    words[0] = 0x01020304;  // EXPECT(race)
    s[0] = 0x05060708;  // EXPECT(race)
  } else if (t == 32) {
    reinterpret_cast<char*>(words)[2] = 9;  // EXPECT(race)
    reinterpret_cast<char*>(s)[1] = 9;  // EXPECT(race)
  }
  __syncthreads();
  if (t == 0) words[1] = s[0];
}

int main() {
  int* words;
  CHECK(cudaMalloc(&words, 2 * sizeof(int)));
  int_over_char<<<1, 64>>>(words);
  CHECK_KERNEL();
  return verdict("bytes_int_over_char", true);
}
