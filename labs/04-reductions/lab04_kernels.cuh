// Lab 04 (reductions): the kernels of the student files, declared for the harness. Provided; do
// not change the signatures (the harness and the graded tests launch these).
//
// Tasks 1-3 and 6 reduce in place, in global memory, as the slides do: block b owns the segment
// a[b * blockDim.x .. (b + 1) * blockDim.x) and leaves its result in the segment's first element.
// blockDim.x is a power of two for them. Task 4 reads its input and writes one sum per block.
#pragma once

#include <cuda_runtime.h>

namespace lab04 {

// ---- task 1 (tree.cu): the tree, two ways of addressing ---------------------------------------
// 1a: step s = 1, 2, 4, ...: thread t adds a[t + s] into a[t] when t is a multiple of 2s.
__global__ void block_sum_interleaved(int* a);
// 1b: offset off = n/2, n/4, ..., 1: thread t < off adds a[t + off] into a[t].
__global__ void block_sum_sequential(int* a);

// ---- task 3 (provided, in tree.cu): 1b's tree with one barrier left out -----------------------
// Barrier k is the __syncthreads() after level k (level 0 has off = n/2, the last has off = 1).
// skip = k leaves barrier k out; skip = -1 keeps them all.
__global__ void block_sum_skip_barrier(int* a, int skip);

// ---- task 2 (inplace.cu): the slides' classwork, compacting in place --------------------------
// Level by level, thread t < off writes a[2t] + a[2t + 1] to a[t] (off = n/2, ..., 1).
__global__ void compact_racy(int* a);   // provided: the slides' version
__global__ void compact_fixed(int* a);  // 2b: yours

// ---- task 4 (warp.cu): the last warp --------------------------------------------------------------
// out[b] = in[b * blockDim.x] + ... + in[(b + 1) * blockDim.x - 1]; blockDim.x is a multiple of
// 32 (4a) or a power of two of at least 64 (4b), at most 1024.
__global__ void block_sum_shuffle(const int* in, int* out);      // 4a: warp shuffles
__global__ void block_sum_tail_unsafe(const int* in, int* out);  // provided: the old warp-synchronous tail
__global__ void block_sum_tail(const int* in, int* out);         // 4b: the tail made safe

// ---- task 5 (grid.cu): the whole grid -----------------------------------------------------------
// *out = in[0] + ... + in[n - 1], any grid shape (blockDim.x a power of two, at most 1024).
// 5a: every block adds its sum into *out with an atomic; *out is 0 before the launch.
__global__ void grid_sum_atomic(const int* in, int n, int* out);
// 5b: two passes: grid_partials writes block b's sum to partials[b]; then sum_partials<<<1, T>>>
//     adds the `count` partials into *out.
__global__ void grid_partials(const int* in, int n, int* partials);
__global__ void sum_partials(const int* partials, int count, int* out);
// 5c: one launch, last block done: partials as in 5b; *ticket is 0 before the launch; the block
//     that finishes last adds the partials and writes *out.
__global__ void grid_sum_last_block(const int* in, int n, int* partials, unsigned* ticket, int* out);

// ---- task 6 (product.cu): an operator that is associative but not commutative -----------------
// A 2x2 matrix of 32-bit words, arithmetic modulo 2^32: [a b; c d].
struct Mat2 {
  unsigned a, b, c, d;
};
__host__ __device__ inline Mat2 mul(const Mat2& x, const Mat2& y) {
  return Mat2{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
__host__ __device__ inline bool operator==(const Mat2& x, const Mat2& y) {
  return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}
// m[b * n] becomes m[b * n] * m[b * n + 1] * ... * m[b * n + n - 1] (n = blockDim.x), in order.
__global__ void block_product(Mat2* m);

}  // namespace lab04
