// A tree reduction in shared memory, one sum per block: each block loads its T inputs into the
// __shared__ array `partial`, then halves the active threads each step (partial[t] +=
// partial[t + s] for t < s, s = T/2, T/4, ..., 1) with a __syncthreads() between steps. The
// array is a shared region (synclab_region_shared), so the trace holds every block's writes to
// it and the viewer can draw one block's copy step by step.
//   viz_shared                    the reduction, B blocks of T threads (T spans two warps)
//   viz_shared --missing-barrier  the same without the barriers between steps (a race: a step
//                                 reads partial[t + s] before the other warp wrote it)
//   viz_shared --dynamic          then a second kernel fills an extern __shared__ 8 x 8 tile
// The program also checks that the regions API refuses what it must (a variable the kernel does
// not have, a region larger than the array, a pointer that is not a kernel) and exits 1 when the
// sums are wrong (only checked with the barriers) or a refusal did not happen.
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include <synclab/regions.h>

constexpr int T = 64;  // threads per block (two warps)
constexpr int B = 3;   // blocks

// The input: element i of the whole grid (the test computes the same values).
__host__ __device__ inline int input(int i) { return (i * 7 + 3) % 11 + 1; }

__global__ void tree_reduce(int* out, int barrier) {
  __shared__ int partial[T];
  const int t = threadIdx.x;
  partial[t] = input(blockIdx.x * T + t);  // VIZ-LOAD
  __syncthreads();
  for (int s = T / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];  // VIZ-STEP
    if (barrier) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// --dynamic: a second kernel with an extern __shared__ array, named for every kernel that has
// one (nullptr): each block fills its 8 x 8 tile with 100 * block + element.
__global__ void tile_fill() {
  extern __shared__ int tile[];
  tile[threadIdx.x] = 100 * blockIdx.x + threadIdx.x;  // VIZ-TILE
  __syncthreads();
}

void not_a_kernel() {}

int main(int argc, char** argv) {
  const bool missing = argc > 1 && std::strcmp(argv[1], "--missing-barrier") == 0;
  const bool dynamic = argc > 1 && std::strcmp(argv[1], "--dynamic") == 0;
  bool ok = true;
  // What must be refused (each prints one line on stderr).
  if (synclab_region_shared(tree_reduce, "no_such_array", T * sizeof(int), "array", T) == 0) {
    std::printf("FAIL: a variable the kernel does not have was accepted\n");
    ok = false;
  }
  if (synclab_region_shared(tree_reduce, "partial", 2 * T * sizeof(int), "array", 2 * T) == 0) {
    std::printf("FAIL: a region larger than the array was accepted\n");
    ok = false;
  }
  if (synclab_region_shared(tree_reduce, "partial", T * sizeof(int), "array", T + 1) == 0) {
    std::printf("FAIL: a shape that does not fit the bytes was accepted\n");
    ok = false;
  }
  if (synclab_region_shared(not_a_kernel, "partial", T * sizeof(int), "array", T) == 0) {
    std::printf("FAIL: a host function was accepted as a kernel\n");
    ok = false;
  }
  if (synclab_region_shared(tree_reduce, "partial", T * sizeof(int), "array", T) != 0) return 1;

  int* out = nullptr;
  if (cudaMalloc(&out, B * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(out, 0, B * sizeof(int));
  if (synclab_region(out, B * sizeof(int), "sums", "array", B) != 0) return 1;
  tree_reduce<<<B, T>>>(out, missing ? 0 : 1);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  if (dynamic) {
    if (synclab_region_shared(nullptr, "tile", T * sizeof(int), "matrix", 8, 8) != 0) return 1;
    tile_fill<<<B, T, T * sizeof(int)>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  }
  int h[B];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(out);
  for (int b = 0; b < B && !missing; ++b) {
    int want = 0;
    for (int t = 0; t < T; ++t) want += input(b * T + t);
    if (h[b] != want) {
      std::printf("FAIL: block %d summed %d, expected %d\n", b, h[b], want);
      ok = false;
    }
  }
  std::printf("%s viz_shared\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
