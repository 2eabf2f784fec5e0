// Lab 04, task 6: a reduction whose operator is associative but not commutative (seed 004, the
// classwork after "Reductions": concatenating characters, and why a[i] cannot be combined with
// a[i + n/2] there while a sum can). Here the operator is the product of 2x2 matrices: any
// grouping gives the same product, but no two factors may change places.
#include "lab04_kernels.cuh"

namespace lab04 {

// seg[0] = seg[0] * seg[1] * ... * seg[n - 1] (n = blockDim.x, a power of two), in place.
__global__ void block_product(Mat2* m) {
  Mat2* seg = m + blockIdx.x * blockDim.x;
  const unsigned t = threadIdx.x;
  // Adjacent pairs, left factor first: after the level of stride s, seg[t] (t a multiple of 2s)
  // holds the product of seg[t .. t + 2s) in order.
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) seg[t] = mul(seg[t], seg[t + s]);
    __syncthreads();
  }
}

}  // namespace lab04
