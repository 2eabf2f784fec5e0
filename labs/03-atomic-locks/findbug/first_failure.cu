// Lab 03, find the bug: sensor readings are validated and one failure of the grid is reported.
//
// Every thread checks one reading: it fails when it lies outside [kLow, kHigh]. Every failing
// thread adds 1 to the failure count with atomicAdd. Besides, the report of one failure is
// written by exactly one failing thread of the whole grid, any one of them (a `single` section):
// the thread that wins an atomicCAS of the report's flag from 0 to 1 writes its index and
// reading into the report and adds 1 to the report's `writers`; every other thread skips the
// section. The flag is never reset. The check expects the host's failure count, writers == 1,
// and a report whose index is a failing reading and whose value is that reading.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kBlocks = 4;
constexpr int kThreads = 64;
constexpr int kLow = 10;
constexpr int kHigh = 90;

struct Report {
  int flag;      // 0 until a thread takes the section
  int writers;   // how many threads ran the section
  int index;     // the failing reading's index
  int value;     // the failing reading
  int failures;  // how many readings failed
};

__device__ bool out_of_range(int value) { return value < kLow || value > kHigh; }

__global__ void validate(const int* readings, Report* report) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int value = readings[i];
  if (!out_of_range(value)) return;
  atomicAdd(&report->failures, 1);
  if (atomicCAS_block(&report->flag, 0, 1) == 0) {
    report->index = i;
    report->value = value;
    report->writers = report->writers + 1;
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  const int n = kBlocks * kThreads;
  std::vector<int> readings(n);
  for (int i = 0; i < n; ++i) readings[i] = (i * 29 + 3) % 100;  // about one in five fails

  int* d_readings = nullptr;
  Report* d_report = nullptr;
  CHECK(cudaMalloc(&d_readings, n * sizeof(int)));
  CHECK(cudaMalloc(&d_report, sizeof(Report)));
  CHECK(cudaMemcpy(d_readings, readings.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_report, 0, sizeof(Report)));
  validate<<<kBlocks, kThreads>>>(d_readings, d_report);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Report got;
  CHECK(cudaMemcpy(&got, d_report, sizeof(Report), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_readings));
  CHECK(cudaFree(d_report));

  int failures = 0;
  for (int v : readings) failures += v < kLow || v > kHigh;
  if (got.failures != failures) {
    std::printf("wrong failure count: %d, expected %d\n", got.failures, failures);
    return 1;
  }
  if (got.writers != 1) {
    std::printf("the report was written by %d threads, expected exactly 1\n", got.writers);
    return 1;
  }
  if (got.index < 0 || got.index >= n || readings[got.index] != got.value ||
      !(got.value < kLow || got.value > kHigh)) {
    std::printf("wrong report: index %d, value %d is not a failing reading\n", got.index, got.value);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
