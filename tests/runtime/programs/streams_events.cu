// Stream order, events (query, synchronize, elapsed time), host functions and callbacks,
// asynchronous copies and fills. Every value is checked against a host computation.
#include "check.h"

#include <vector>

__global__ void add_value(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

__global__ void busy(float* p, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = p[i];
    for (int r = 0; r < rounds; ++r) x = x * 0.5f + 1.0f;
    p[i] = x;
  }
}

struct HostLog {
  int order[8];
  int count;
};

static void CUDART_CB record_step(void* data) {
  HostLog* log = static_cast<HostLog*>(data);
  log->order[log->count] = log->count;
  ++log->count;
}

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* data) {
  *static_cast<int*>(data) = status == cudaSuccess ? 1 : -1;
}

int main() {
  const int n = 1000;
  int* d = nullptr;
  CHECK_OK(cudaMalloc(&d, n * sizeof(int)));
  std::vector<int> h(n), back(n);
  for (int i = 0; i < n; ++i) h[i] = i;

  cudaStream_t s1, s2;
  CHECK_OK(cudaStreamCreate(&s1));
  CHECK_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  unsigned flags = 99;
  CHECK_OK(cudaStreamGetFlags(s2, &flags));
  CHECK_EQ_INT(flags, cudaStreamNonBlocking);

  // In-order work on one stream: copy in, three kernels, copy out.
  CHECK_OK(cudaMemcpyAsync(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 5);
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, -2);
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 10);
  CHECK_OK(cudaMemcpyAsync(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK_OK(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) CHECK_EQ_INT(back[i], i + 13);

  // Pageable host memory (CUDA's documented rules): an async copy from it takes the data before
  // the call returns, and an async copy into it is complete when the call returns.
  std::vector<int> staged(n, 1), seen(n, 0);
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 0);  // some earlier work on the stream
  CHECK_OK(cudaMemcpyAsync(d, staged.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
  for (int i = 0; i < n; ++i) staged[i] = 2;  // too late to be copied
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 40);
  CHECK_OK(cudaMemcpyAsync(seen.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  for (int i = 0; i < n; ++i) CHECK_EQ_INT(seen[i], 41);  // no synchronize needed
  CHECK_OK(cudaStreamSynchronize(s1));

  // Events: s2 waits for an event recorded on s1.
  cudaEvent_t start, stop, mark;
  CHECK_OK(cudaEventCreate(&start));
  CHECK_OK(cudaEventCreate(&stop));
  CHECK_OK(cudaEventCreateWithFlags(&mark, cudaEventDisableTiming));
  CHECK_OK(cudaEventQuery(mark));  // never recorded: complete
  CHECK_OK(cudaMemsetAsync(d, 0, n * sizeof(int), s1));
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 3);
  CHECK_OK(cudaEventRecord(mark, s1));
  CHECK_OK(cudaStreamWaitEvent(s2, mark, 0));
  add_value<<<(n + 127) / 128, 128, 0, s2>>>(d, n, 4);
  CHECK_OK(cudaMemcpyAsync(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s2));
  CHECK_OK(cudaStreamSynchronize(s2));
  for (int i = 0; i < n; ++i) CHECK_EQ_INT(back[i], 7);
  CHECK_OK(cudaEventSynchronize(mark));
  CHECK_OK(cudaEventQuery(mark));

  // Timing: a kernel with 5000 times the work takes longer (one warp, so that the simulator
  // stays quick; on a GPU the long one runs for about a millisecond).
  float* f = nullptr;
  const int nf = 32;
  CHECK_OK(cudaMalloc(&f, nf * sizeof(float)));
  CHECK_OK(cudaMemset(f, 0, nf * sizeof(float)));
  busy<<<1, nf, 0, s1>>>(f, nf, 10);  // warm-up
  float short_ms = 0, long_ms = 0;
  CHECK_OK(cudaEventRecord(start, s1));
  busy<<<1, nf, 0, s1>>>(f, nf, 20);
  CHECK_OK(cudaEventRecord(stop, s1));
  CHECK_OK(cudaEventSynchronize(stop));
  CHECK_OK(cudaEventElapsedTime(&short_ms, start, stop));
  CHECK_OK(cudaEventRecord(start, s1));
  busy<<<1, nf, 0, s1>>>(f, nf, 100000);
  CHECK_OK(cudaEventRecord(stop, s1));
  CHECK_OK(cudaEventSynchronize(stop));
  CHECK_OK(cudaEventElapsedTime(&long_ms, start, stop));
  CHECK_TRUE(short_ms >= 0.0f);
  CHECK_TRUE(long_ms > short_ms);
  CHECK_ERR(cudaEventElapsedTime(&short_ms, start, mark), cudaErrorInvalidResourceHandle);  // no timing

  // Host functions run in stream order, after the work before them.
  HostLog log{};
  CHECK_OK(cudaLaunchHostFunc(s1, record_step, &log));
  add_value<<<1, 1, 0, s1>>>(d, 1, 1);
  CHECK_OK(cudaLaunchHostFunc(s1, record_step, &log));
  int called = 0;
  CHECK_OK(cudaStreamAddCallback(s1, stream_callback, &called, 0));
  CHECK_OK(cudaStreamSynchronize(s1));
  CHECK_EQ_INT(log.count, 2);
  CHECK_EQ_INT(log.order[1], 1);
  CHECK_EQ_INT(called, 1);

  // The legacy default stream waits for the other (blocking) streams' work.
  add_value<<<(n + 127) / 128, 128, 0, s1>>>(d, n, 100);
  CHECK_OK(cudaMemcpy(back.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_EQ_INT(back[0], 7 + 1 + 100);
  CHECK_EQ_INT(back[n - 1], 7 + 100);

  CHECK_OK(cudaEventDestroy(start));
  CHECK_OK(cudaEventDestroy(stop));
  CHECK_OK(cudaEventDestroy(mark));
  CHECK_OK(cudaStreamDestroy(s1));
  CHECK_OK(cudaStreamDestroy(s2));
  CHECK_OK(cudaFree(d));
  CHECK_OK(cudaFree(f));
  return finish("streams_events");
}
