// Lab 04, task 6: a reduction whose operator is associative but not commutative (seed 004, the
// classwork after "Reductions": concatenating characters, and why a[i] cannot be combined with
// a[i + n/2] there while a sum can). Here the operator is the product of 2x2 matrices: any
// grouping gives the same product, but no two factors may change places.
#include "lab04_kernels.cuh"

namespace lab04 {

// seg[0] = seg[0] * seg[1] * ... * seg[n - 1] (n = blockDim.x, a power of two), in place.
__global__ void block_product(Mat2* m) {
  // TODO(6): seg[0] = seg[0] * seg[1] * ... * seg[n - 1] with mul(x, y) (x on the left), in
  // log2(n) levels with barriers; which of task 1's two addressings keeps the factors in order?
  // (about 4 lines)
  // this block's segment and this thread: Mat2* seg = m + blockIdx.x * blockDim.x; const unsigned t = threadIdx.x;
  (void)m;
}

}  // namespace lab04
