// Where lab 08 task 3's round trip spends its time on a GPU: the same mailbox protocol with one
// thing changed at a time, each timed as bench/lab08_handoff times task 3 (20,000 chained round
// trips after 1,000 untimed ones, median, every result checked). Not built by CMake:
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -I common/include \
//        -I labs/08-cpu-gpu-handoff -o mailbox_costs bench/lab08_handoff/mailbox_costs.cu
//
// Rows: task 3's protocol in its `Mailbox` and with the host's and the kernel's words on
// 128-byte lines of their own (Split); `stop` read in every poll or in one poll of 64; the request
// read plain or relaxed at system scope; the release of `answered` as a release store or as a
// release fence and a relaxed store; `answered` stored relaxed (wrong: the answer may arrive after
// it; there to price the release); and task 3b's one word each way. Results:
// bench/results/lab08_handoff.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab08_kernels.cuh"  // Mailbox, WordBox and its word helpers, SystemAtomic, work()

// keep_waiting() of lab08_kernels.cuh: these loops do not call it.
bool host_keep_waiting() { return true; }

template <class T>
using SA = SystemAtomic<T>;
struct alignas(128) Split {
  int request;
  unsigned asked;
  int stop;
  int pad0[29];  // host writes
  int answer;
  unsigned answered;
  int pad1[30];  // device writes
};
// mode bits: 1 = stop checked every 64 polls only; 2 = answered stored relaxed (wrong, for cost);
// 4 = request read relaxed.sys (volatile) instead of plain; 8 = fence-based release (fence.acq_rel.sys + relaxed)
template <class MB>
__global__ void server(MB* mb, int mode) {
  SA<unsigned> asked(mb->asked), answered(mb->answered);
  SA<int> stop(mb->stop);
  for (unsigned round = 1;; ++round) {
    unsigned n = 0;
    while (asked.load(cuda::memory_order_acquire) != round) {
      if ((mode & 1) && (++n & 63)) continue;
      if (stop.load(cuda::memory_order_acquire)) return;
    }
    int req = (mode & 4) ? SA<int>(mb->request).load(cuda::memory_order_relaxed) : mb->request;
    mb->answer = work(req);
    if (mode & 2)
      answered.store(round, cuda::memory_order_relaxed);
    else if (mode & 8) {
      cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
      answered.store(round, cuda::memory_order_relaxed);
    } else
      answered.store(round, cuda::memory_order_release);
  }
}
// Task 3b's protocol (as its reference, without the reference's keep_waiting() calls).
__global__ void word_costs_server(WordBox* box) {
  SA<unsigned long long> in(box->to_gpu.word), out(box->to_host.word);
  for (unsigned round = 1;; ++round) {
    unsigned long long w;
    while (round_of(w = in.load(cuda::memory_order_relaxed)) != round)
      if (round_of(w) == kStopRound) return;
    out.store(word(round, work(value_of(w))), cuda::memory_order_relaxed);
  }
}
using Clk = std::chrono::steady_clock;
template <class F>
double median_us(int rounds, F f) {
  std::vector<double> us;
  int x = 12345;
  for (int k = 1; k <= 1000 + rounds; ++k) {
    auto t0 = Clk::now();
    int y = f(x, unsigned(k));
    auto t1 = Clk::now();
    if (y != work(x)) {
      std::printf("WRONG at %d: %d vs %d\n", k, y, work(x));
      return -1;
    }
    x = y;
    if (k > 1000) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}
template <class MB>
double run(int mode, int rounds) {
  MB* h;
  MB* d;
  CHECK(cudaHostAlloc((void**)&h, sizeof(MB), cudaHostAllocMapped));
  std::memset((void*)h, 0, sizeof(MB));
  CHECK(cudaHostGetDevicePointer((void**)&d, h, 0));
  server<MB><<<1, 1>>>(d, mode);
  CHECK(cudaGetLastError());
  double m = median_us(rounds, [&](int x, unsigned round) {
    SA<unsigned> asked(h->asked), answered(h->answered);
    h->request = x;
    asked.store(round, cuda::memory_order_release);
    while (answered.load(cuda::memory_order_acquire) != round) {
    }
    return h->answer;
  });
  SA<int>(h->stop).store(1, cuda::memory_order_release);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h));
  return m;
}
double run_word(int rounds) {
  WordBox* h;
  WordBox* d;
  CHECK(cudaHostAlloc((void**)&h, sizeof(WordBox), cudaHostAllocMapped));
  std::memset((void*)h, 0, sizeof(WordBox));
  CHECK(cudaHostGetDevicePointer((void**)&d, h, 0));
  word_costs_server<<<1, 1>>>(d);
  CHECK(cudaGetLastError());
  double m = median_us(rounds, [&](int x, unsigned round) {
    SA<unsigned long long> in(h->to_gpu.word), out(h->to_host.word);
    in.store(word(round, x), cuda::memory_order_relaxed);
    unsigned long long w;
    while (round_of(w = out.load(cuda::memory_order_relaxed)) != round) {
    }
    return value_of(w);
  });
  SA<unsigned long long>(h->to_gpu.word).store(word(kStopRound, 0), cuda::memory_order_relaxed);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFreeHost(h));
  return m;
}
int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("device %s\n", p.name);
  const int R = 20000;
  for (int rep = 0; rep < 2; ++rep) {
    std::printf("rep %d\n", rep);
    std::printf("  packed struct, task 3 as taught        %6.2f us\n", run<Mailbox>(0, R));
    std::printf("  split lines, task 3 code               %6.2f us\n", run<Split>(0, R));
    std::printf("  packed, stop every 64 polls            %6.2f us\n", run<Mailbox>(1, R));
    std::printf("  split, stop every 64 polls             %6.2f us\n", run<Split>(1, R));
    std::printf("  split, stop/64, request relaxed.sys    %6.2f us\n", run<Split>(5, R));
    std::printf("  split, stop/64, fence release          %6.2f us\n", run<Split>(9, R));
    std::printf("  split, stop/64, answered RELAXED(wrong)%6.2f us\n", run<Split>(3, R));
    std::printf("  one word each way                      %6.2f us\n", run_word(R));
  }
  std::printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
