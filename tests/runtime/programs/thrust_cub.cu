// Thrust and CUB, as shipped with the toolkit, run unchanged: they exercise the runtime the way
// library code does (cudaFuncGetAttributes to pick tuning policies, occupancy queries,
// cudaLaunchKernelExC, temporary storage, streams). Results are checked against host loops.
#include "check.h"

#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <algorithm>
#include <vector>

int main() {
  const int n = 3000;
  // thrust: fill, reduce, sort
  thrust::device_vector<int> v(n);
  thrust::sequence(v.begin(), v.end());
  long long expect_sum = (long long)n * (n - 1) / 2;
  CHECK_EQ_INT(thrust::reduce(v.begin(), v.end(), 0LL), expect_sum);
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = (i * 7919) % 1009 - 500;
  thrust::device_vector<int> dkeys(keys.begin(), keys.end());
  thrust::sort(dkeys.begin(), dkeys.end());
  thrust::host_vector<int> sorted = dkeys;
  std::vector<int> ref = keys;
  std::sort(ref.begin(), ref.end());
  for (int i = 0; i < n; ++i) CHECK_EQ_INT(sorted[i], ref[i]);

  // CUB device-wide reduce and exclusive scan, with their two-call temporary storage protocol.
  int* in = thrust::raw_pointer_cast(v.data());
  int *out = nullptr, *scan = nullptr;
  CHECK_OK(cudaMalloc(&out, sizeof(int)));
  CHECK_OK(cudaMalloc(&scan, n * sizeof(int)));
  void* tmp = nullptr;
  size_t bytes = 0, scan_bytes = 0;
  CHECK_OK(cub::DeviceReduce::Sum(tmp, bytes, in, out, n));
  CHECK_OK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, in, scan, n));
  bytes = std::max(bytes, scan_bytes);
  CHECK_OK(cudaMalloc(&tmp, bytes));
  CHECK_OK(cub::DeviceReduce::Sum(tmp, bytes, in, out, n));
  CHECK_OK(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, scan, n));
  int sum = 0;
  CHECK_OK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(sum, expect_sum);
  std::vector<int> prefix(n);
  CHECK_OK(cudaMemcpy(prefix.data(), scan, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long running = 0;
  for (int i = 0; i < n; ++i) {
    CHECK_EQ_INT(prefix[i], running);
    running += i;
  }
  CHECK_OK(cudaFree(tmp));
  CHECK_OK(cudaFree(out));
  CHECK_OK(cudaFree(scan));
  return finish("thrust_cub");
}
