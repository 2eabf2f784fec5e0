// Lab 01's GPU measurement (LABS.md): the grading histogram at scale. Three versions of the same
// count over N marks (default 10^8), one thread per mark in a grid-stride loop:
//   racy        bins[g]++                     loses counts (how many is printed)
//   atomic      atomicAdd on the 7 global bins every mark
//   privatized  atomicAdd on per-block shared bins, then 7 global atomics per block
// The kernels are the reference solutions' (solutions/01-data-races/histogram.cu). Each version
// is checked against a host count before it is timed (the racy one is reported, not checked).
//
//   lab01_histogram [--marks N] [--reps R] [--blocks B] [--threads T]
//
// Prints the device, the date and a table: time per run (best of R, CUDA events), marks per
// second, and the marks lost. On the simulator use a small --marks (e.g. 100000).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab01_kernels.cuh"

int main(int argc, char** argv) {
  long long n = 100000000;
  int reps = 5, blocks = 0, threads = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    long long v = std::atoll(argv[i + 1]);
    if (a == "--marks") n = v;
    else if (a == "--reps") reps = int(v);
    else if (a == "--blocks") blocks = int(v);
    else if (a == "--threads") threads = int(v);
    else { std::fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
  }
  if (n < 1 || n > 2000000000 || reps < 1 || threads < 32 || threads > 1024) {
    std::fprintf(stderr, "usage: lab01_histogram [--marks N<=2e9] [--reps R] [--blocks B] [--threads 32..1024]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (blocks == 0) blocks = prop.multiProcessorCount * 8;
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab01_histogram: %lld marks, grid %d x %d, best of %d runs\n", n, blocks, threads, reps);
  std::printf("device: %s (%d SMs, cc %d.%d)\ndate: %s\n\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, date);

  // Marks 0..100 from a fixed generator; the host count is the reference.
  std::vector<int> marks(n);
  unsigned long long x = 88172645463325252ull;
  std::vector<unsigned long long> want(7, 0);
  for (long long i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    marks[i] = int(x % 101);
    want[lab01::grade_of(marks[i])]++;
  }
  int* d_marks;
  unsigned* d_bins;
  CHECK(cudaMalloc(&d_marks, n * sizeof(int)));
  CHECK(cudaMalloc(&d_bins, 7 * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_marks, marks.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));

  struct Version { const char* name; void (*kernel)(const int*, int, unsigned*); bool must_be_exact; };
  const Version versions[] = {{"racy", lab01::histogram_racy, false},
                              {"atomic", lab01::histogram_atomic, true},
                              {"privatized", lab01::histogram_privatized, true}};
  std::printf("%-11s %12s %14s %16s  %s\n", "version", "time (ms)", "marks/s", "marks lost", "check");
  int bad = 0;
  for (const Version& v : versions) {
    float best = 1e30f;
    long long lost_max = 0;
    bool exact = true;
    for (int r = 0; r < reps + 1; ++r) {  // run 0 warms up
      CHECK(cudaMemset(d_bins, 0, 7 * sizeof(unsigned)));
      CHECK(cudaEventRecord(t0));
      v.kernel<<<blocks, threads>>>(d_marks, int(n), d_bins);
      CHECK(cudaEventRecord(t1));
      CHECK(cudaGetLastError());
      CHECK(cudaEventSynchronize(t1));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, t0, t1));
      if (r > 0) best = std::min(best, ms);
      unsigned got[7];
      CHECK(cudaMemcpy(got, d_bins, sizeof got, cudaMemcpyDeviceToHost));
      long long counted = 0;
      for (int g = 0; g < 7; ++g) {
        counted += got[g];
        exact = exact && got[g] == want[g];
      }
      lost_max = std::max(lost_max, n - counted);
    }
    const char* check = v.must_be_exact ? (exact ? "exact" : "WRONG") : (exact ? "exact (lucky)" : "counts lost");
    if (v.must_be_exact && !exact) ++bad;
    std::printf("%-11s %12.3f %14.3e %16lld  %s\n", v.name, best, double(n) / (best * 1e-3), lost_max, check);
  }
  CHECK(cudaFree(d_marks));
  CHECK(cudaFree(d_bins));
  if (bad) std::printf("\nsome version counted wrong: the numbers above are not valid\n");
  return bad ? 1 : 0;
}
