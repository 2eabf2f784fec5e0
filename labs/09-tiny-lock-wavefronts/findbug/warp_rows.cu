// Lab 09, find the bug: rows of a table computed warp after warp, handed on by one flag per warp.
//
// One block of kWarps warps fills a table of kWarps + 1 rows of 32 ints in shared memory. Row 0 is
// the input. Lane l of warp w computes row w + 1 from the row above it:
//   row[w + 1][l] = row[w][l] + 2 * row[w][(l + 1) % 32] + w,
// so warp w needs all of row w, which warp w - 1 wrote. Each warp has a ready flag in shared
// memory, up when the warp's row is done: the lanes of warp w wait (acquire) until warp w - 1's
// flag is up and compute their cells, and lane 0 raises warp w's flag (release). At the end the
// block copies rows 1..kWarps to out. The check compares out with the rows computed on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kWarps = 8;

// Acquire load and release store at block scope (PTX ld.acquire.cta / st.release.cta).
__device__ int load_acquire_cta(const int* p) {
  int v;
  asm volatile("ld.acquire.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void store_release_cta(int* p, int v) {
  asm volatile("st.release.cta.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void warp_rows(const int* first_row, int* out) {
  __shared__ int row[kWarps + 1][32];
  __shared__ int ready[kWarps];
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  if (warp == 0) row[0][lane] = first_row[lane];
  if (threadIdx.x < kWarps) ready[threadIdx.x] = 0;
  __syncthreads();

  if (warp > 0) {
    while (load_acquire_cta(&ready[warp - 1]) == 0) {
    }
  }
  row[warp + 1][lane] = row[warp][lane] + 2 * row[warp][(lane + 1) % 32] + warp;
  if (lane == 0) store_release_cta(&ready[warp], 1);

  __syncthreads();
  out[threadIdx.x] = row[warp + 1][lane];
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t err_ = (call);                                                                    \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

int main() {
  const int n = 32 * kWarps;
  std::vector<int> first(32);
  for (int l = 0; l < 32; ++l) first[l] = (l * 13) % 10 - 4;

  int *d_first = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_first, 32 * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_first, first.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
  warp_rows<<<1, n>>>(d_first, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_first));
  CHECK(cudaFree(d_out));

  std::vector<int> above = first, below(32);
  for (int w = 0; w < kWarps; ++w) {
    for (int l = 0; l < 32; ++l) below[l] = above[l] + 2 * above[(l + 1) % 32] + w;
    for (int l = 0; l < 32; ++l) {
      if (out[w * 32 + l] != below[l]) {
        std::printf("wrong cell %d of row %d: %d, expected %d\n", l, w + 1, out[w * 32 + l], below[l]);
        return 1;
      }
    }
    above = below;
  }
  std::printf("ok\n");
  return 0;
}
