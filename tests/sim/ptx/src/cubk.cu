#include <cub/cub.cuh>
__global__ void breduce(const int* in, int* out) {
  typedef cub::BlockReduce<int, 128> BR;
  __shared__ typename BR::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int s = BR(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
__global__ void bscan(const int* in, int* out) {
  typedef cub::BlockScan<int, 128> BS;
  __shared__ typename BS::TempStorage tmp;
  int v = in[threadIdx.x];
  int r;
  BS(tmp).ExclusiveSum(v, r);
  out[threadIdx.x] = r;
}
__global__ void wreduce(const float* in, float* out) {
  typedef cub::WarpReduce<float> WR;
  __shared__ typename WR::TempStorage tmp[4];
  int w = threadIdx.x / 32;
  float v = in[threadIdx.x];
  float s = WR(tmp[w]).Sum(v);
  if (threadIdx.x % 32 == 0) out[w] = s;
}
