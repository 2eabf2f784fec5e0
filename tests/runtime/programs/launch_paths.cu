// Every way to launch a kernel reaches the right kernel with the right arguments: <<<>>> on
// templates and overloads, cudaLaunchKernel with an argument array, cudaLaunchKernelEx, and
// cooperative launches (including one too large to be co-resident). Arguments of awkward sizes
// and alignments check the parameter packing; expected values are computed on the host.
#include "check.h"

#include <cooperative_groups.h>

struct Odd {
  char c;
  double d;
  short s;
  int arr[3];
};

__global__ void pack(Odd o, char c, short s, long long ll, float f, double d, unsigned char uc, int* out) {
  out[0] = o.c;
  out[1] = int(o.d * 10);
  out[2] = o.s;
  out[3] = o.arr[0] + o.arr[1] + o.arr[2];
  out[4] = c;
  out[5] = s;
  out[6] = int(ll >> 32);
  out[7] = int(f * 4);
  out[8] = int(d * 8);
  out[9] = uc;
}

template <typename T>
__global__ void scale(T* p, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= factor;
}

__global__ void overloaded(int* p) { p[0] = 1; }
__global__ void overloaded(int* p, int v) { p[0] = v; }

__global__ void count_blocks(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

__global__ void grid_sum(int* partial, int* total) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) partial[blockIdx.x] = int(blockIdx.x) + 1;
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b];
    *total = s;
  }
}

static void not_a_kernel() {}

int main() {
  int* out = nullptr;
  CHECK_OK(cudaMalloc(&out, 64 * sizeof(int)));
  int h[64];

  // ---- parameter packing ----
  Odd o{'x', 2.5, -300, {1, 2, 3}};
  long long ll = (long long)123 << 32;
  pack<<<1, 1>>>(o, 'q', short(-7), ll, 1.25f, 0.5, (unsigned char)250, out);
  CHECK_OK(cudaGetLastError());
  CHECK_OK(cudaMemcpy(h, out, 10 * sizeof(int), cudaMemcpyDeviceToHost));
  int expect[10] = {'x', 25, -300, 6, 'q', -7, 123, 5, 4, 250};
  for (int i = 0; i < 10; ++i) CHECK_EQ_INT(h[i], expect[i]);

  // ---- cudaLaunchKernel with an argument array ----
  char c = 'z';
  short s = 1234;
  float f = 2.0f;
  double d = 3.0;
  unsigned char uc = 7;
  void* args[] = {&o, &c, &s, &ll, &f, &d, &uc, &out};
  CHECK_OK(cudaLaunchKernel((const void*)pack, dim3(1), dim3(1), args, 0, nullptr));
  CHECK_OK(cudaMemcpy(h, out, 10 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[4], 'z');
  CHECK_EQ_INT(h[5], 1234);
  CHECK_EQ_INT(h[7], 8);
  CHECK_EQ_INT(h[8], 24);
  CHECK_EQ_INT(h[9], 7);

  // ---- templates and overloads ----
  float* fp = nullptr;
  double* dp = nullptr;
  CHECK_OK(cudaMalloc(&fp, 40 * sizeof(float)));
  CHECK_OK(cudaMalloc(&dp, 40 * sizeof(double)));
  float fh[40];
  double dh[40];
  for (int i = 0; i < 40; ++i) {
    fh[i] = float(i);
    dh[i] = i * 0.5;
  }
  CHECK_OK(cudaMemcpy(fp, fh, sizeof fh, cudaMemcpyHostToDevice));
  CHECK_OK(cudaMemcpy(dp, dh, sizeof dh, cudaMemcpyHostToDevice));
  scale<float><<<2, 32>>>(fp, 3.0f, 40);
  scale<double><<<2, 32>>>(dp, -2.0, 40);
  CHECK_OK(cudaMemcpy(fh, fp, sizeof fh, cudaMemcpyDeviceToHost));
  CHECK_OK(cudaMemcpy(dh, dp, sizeof dh, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 40; ++i) {
    CHECK_TRUE(fh[i] == float(i) * 3.0f);
    CHECK_TRUE(dh[i] == i * 0.5 * -2.0);
  }
  overloaded<<<1, 1>>>(out);
  CHECK_OK(cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], 1);
  overloaded<<<1, 1>>>(out, 77);
  CHECK_OK(cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], 77);

  // ---- cudaLaunchKernelEx ----
  CHECK_OK(cudaMemset(out, 0, sizeof(int)));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(5);
  config.blockDim = dim3(64);
  CHECK_OK(cudaLaunchKernelEx(&config, count_blocks, out));
  CHECK_OK(cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], 5);

  // ---- function attributes, occupancy ----
  cudaFuncAttributes attr;
  CHECK_OK(cudaFuncGetAttributes(&attr, grid_sum));
  CHECK_TRUE(attr.maxThreadsPerBlock > 0);
#if defined(__CUDA_ARCH_LIST__)
  {
    // ptxVersion is a virtual architecture the program was built for (one of nvcc's arch list,
    // e.g. 750 -> 75), which libraries like CUB use to pick their tuning.
    const int archs[] = {__CUDA_ARCH_LIST__};
    bool listed = false;
    for (int a : archs) listed = listed || attr.ptxVersion * 10 == a;
    CHECK_TRUE(listed);
  }
#endif
  CHECK_ERR(cudaFuncGetAttributes(&attr, (const void*)not_a_kernel), NOT_A_KERNEL);
  int per_sm = 0;
  CHECK_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 64, 0));
  CHECK_TRUE(per_sm > 0);
  int min_grid = 0, block = 0;
  CHECK_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, count_blocks, 0, 0));
  CHECK_TRUE(block > 0 && block % 32 == 0);
  cudaDeviceProp prop;
  CHECK_OK(cudaGetDeviceProperties(&prop, 0));
  CHECK_TRUE(prop.cooperativeLaunch == 1);

  // ---- cooperative launches ----
  int* partial = nullptr;
  CHECK_OK(cudaMalloc(&partial, 4096 * sizeof(int)));
  int blocks = per_sm * prop.multiProcessorCount;
  void* coop_args[] = {&partial, &out};
  CHECK_OK(cudaLaunchCooperativeKernel((const void*)grid_sum, dim3(blocks), dim3(64), coop_args, 0, nullptr));
  CHECK_OK(cudaDeviceSynchronize());
  CHECK_OK(cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(h[0], blocks * (blocks + 1) / 2);
  CHECK_ERR(cudaLaunchCooperativeKernel((const void*)grid_sum, dim3(blocks + 1), dim3(64), coop_args, 0, nullptr),
            cudaErrorCooperativeLaunchTooLarge);
  CHECK_ERR(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
  CHECK_OK(cudaGetLastError());  // not sticky
  CHECK_OK(cudaDeviceSynchronize());

  CHECK_OK(cudaFree(out));
  CHECK_OK(cudaFree(fp));
  CHECK_OK(cudaFree(dp));
  CHECK_OK(cudaFree(partial));
  return finish("launch_paths");
}
