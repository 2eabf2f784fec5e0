// bytes_same_char (race): lane 0 of warp 0 and lane 0 of warp 1 both write byte 5 of a char
// array (global and shared), with nothing between them: a write-write race on one byte (ERROR,
// both models), even though the other threads write only their own bytes.
#include "checks.h"

__global__ void same_char(char* c) {
  __shared__ char s[64];
  const int t = threadIdx.x;
  s[t] = 0;
  c[t] = 0;
  __syncthreads();
  if (t % 32 == 0) c[5] = static_cast<char>(t);  // EXPECT(race)
  if (t % 32 == 0) s[5] = static_cast<char>(t);  // EXPECT(race)
  __syncthreads();
  if (t == 0) c[6] = s[5];
}

int main() {
  char* c;
  CHECK(cudaMalloc(&c, 64));
  same_char<<<1, 64>>>(c);
  CHECK_KERNEL();
  return verdict("bytes_same_char", true);
}
