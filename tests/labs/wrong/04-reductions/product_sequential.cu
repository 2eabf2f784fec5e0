// WRONG SOLUTION (lab 04, task 6): task 1b's sequential addressing for the matrix product. It
// pairs seg[t] with seg[t + n/2], which a sum allows (it is commutative) and a product of
// matrices does not: the factors end up out of order.
// WRONG-REPLACES: product.cu
// WRONG-FAILS: lab04 task6 block_product multiplies 2x2 matrices in order
// WRONG-MESSAGE: matrices do not commute
// WRONG-MESSAGE: never seg\[t\] with seg\[t \+ n/2\]
//
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
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (t < off) seg[t] = mul(seg[t], seg[t + off]);
    __syncthreads();
  }
}

}  // namespace lab04
