// vector_overlap (race): 16-byte vector accesses that overlap accesses of another block.
//   v[0]: block 0 writes the int4, block 1 reads its upper 8 bytes as an int2;
//   w[1]: both blocks write the same int4.
// Unordered: ERROR, both models.
#include "checks.h"

__global__ void overlap(int4* v, int4* w, int2* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    v[0] = make_int4(1, 2, 3, 4);  // EXPECT(race)
  } else {
    const unsigned d = busy(100, blockIdx.x);
    int2 x = reinterpret_cast<const int2*>(v)[1];  // EXPECT(race)
    x.x += (d == 5u);
    out[0] = x;
  }
  w[1] = make_int4(blockIdx.x, 0, 0, 0);  // EXPECT(race)
}

int main() {
  int4 *v, *w;
  int2* out;
  CHECK(cudaMalloc(&v, 2 * sizeof(int4)));
  CHECK(cudaMalloc(&w, 2 * sizeof(int4)));
  CHECK(cudaMalloc(&out, sizeof(int2)));
  CHECK(cudaMemset(v, 0, 2 * sizeof(int4)));
  CHECK(cudaMemset(w, 0, 2 * sizeof(int4)));
  overlap<<<2, 32>>>(v, w, out);
  CHECK_KERNEL();
  return verdict("vector_overlap", true);
}
