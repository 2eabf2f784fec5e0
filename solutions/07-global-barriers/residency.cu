// Lab 07, task 7: co-residency. A GPU barrier inside one launch waits for every block, so every
// block must be running at once: a block that waits for one still queued for a free SM slot waits
// forever (the simulator reports the hang). The occupancy API says how many blocks of a kernel one
// SM holds; times the SM count, that is the most blocks a global barrier may have.
#include "lab07_kernels.cuh"

namespace lab07 {

int coresident_blocks(const void* kernel, int threads) {
  int device = 0, per_sm = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess) return 0;
  return per_sm * prop.multiProcessorCount;
}

}  // namespace lab07
