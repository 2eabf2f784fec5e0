// Lab 03's GPU measurement (LABS.md): critical sections per second under contention. Every
// thread of a full grid runs critical sections guarded by
//   global             one lock word for everyone (count_locked)
//   global+backoff     the same with exponential __nanosleep backoff (count_backoff)
//   warp-aggregated    one lane per warp takes the global lock for its 32 lanes (count_warp_aggregated)
//   buckets K          one lock per bucket of a K-bucket hash table (insert_keys), K = 1, 64, 4096
//   buckets K+backoff  the same with a fixed __nanosleep after a failed attempt
// The kernels are the reference solutions' (solutions/03-atomic-locks). Each version is checked
// (counts, bucket contents) before it is timed.
//
//   lab03_locks [--blocks B] [--threads T] [--rounds R] [--reps N] [--backoff NS] [--smoke]
//
// Prints the device, the date and a table: time (best of N, CUDA events), critical sections per
// second, and the work done per second (increments or keys). --smoke: a tiny run for the simulator.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab03_kernels.cuh"

namespace {

struct Row {
  std::string name;
  double ms = 0;
  long long sections = 0, work = 0;
  bool ok = false;
};

// Best of `reps` runs of `launch` (which resets its own state first, outside the timed part).
double time_best(int reps, const std::function<void()>& reset, const std::function<void()>& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int i = 0; i < reps; ++i) {
    reset();
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return best;
}

Row count_row(const char* name, void (*kernel)(lab03::Counters, int), int blocks, int threads, int rounds,
              int reps, bool aggregated) {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 3 * sizeof(int)));
  lab03::Counters c{d, d + 1, d + 2};
  Row r{name};
  r.ms = time_best(
      reps, [&] { CHECK(cudaMemset(d, 0, 3 * sizeof(int))); },
      [&] { kernel<<<blocks, threads>>>(c, rounds); });
  int h[3];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const long long increments = 1ll * blocks * threads * rounds;
  const long long want_sections = aggregated ? 1ll * blocks * (threads / 32) * rounds : increments;
  r.ok = h[0] == 0 && h[1] == increments && h[2] == want_sections;
  r.sections = want_sections;
  r.work = increments;
  CHECK(cudaFree(d));
  return r;
}

Row bucket_row(const std::string& name, const std::vector<int>& keys, int buckets, unsigned backoff, int blocks,
               int threads, int reps) {
  std::vector<int> want(buckets, 0);
  for (int k : keys) want[lab03::bucket_of(k, buckets)]++;
  const int capacity = *std::max_element(want.begin(), want.end());
  int *d_keys, *locks, *counts, *items;
  CHECK(cudaMalloc(&d_keys, keys.size() * sizeof(int)));
  CHECK(cudaMalloc(&locks, buckets * sizeof(int)));
  CHECK(cudaMalloc(&counts, buckets * sizeof(int)));
  CHECK(cudaMalloc(&items, size_t(buckets) * capacity * sizeof(int)));
  CHECK(cudaMemcpy(d_keys, keys.data(), keys.size() * sizeof(int), cudaMemcpyHostToDevice));
  lab03::BucketTable t{buckets, capacity, locks, counts, items};
  Row r{name};
  r.ms = time_best(
      reps,
      [&] {
        CHECK(cudaMemset(locks, 0, buckets * sizeof(int)));
        CHECK(cudaMemset(counts, 0, buckets * sizeof(int)));
      },
      [&] { lab03::insert_keys<<<blocks, threads>>>(d_keys, int(keys.size()), t, backoff); });
  std::vector<int> got(buckets), held(buckets);
  CHECK(cudaMemcpy(got.data(), counts, buckets * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(held.data(), locks, buckets * sizeof(int), cudaMemcpyDeviceToHost));
  r.ok = got == want && std::count(held.begin(), held.end(), 0) == buckets;
  r.sections = r.work = (long long)keys.size();
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(locks));
  CHECK(cudaFree(counts));
  CHECK(cudaFree(items));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  // Default: one block of 64 threads per SM. With every thread of a larger grid contending for
  // one lock word, a single launch takes seconds to minutes (bench/results/lab03_locks.md).
  int blocks = 0, threads = 64, rounds = 1, reps = 5;
  unsigned backoff = 64;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--smoke") { smoke = true; continue; }
    if (i + 1 >= argc) { std::fprintf(stderr, "option %s needs a value\n", argv[i]); return 2; }
    long long v = std::atoll(argv[++i]);
    if (a == "--blocks") blocks = int(v);
    else if (a == "--threads") threads = int(v);
    else if (a == "--rounds") rounds = int(v);
    else if (a == "--reps") reps = int(v);
    else if (a == "--backoff") backoff = unsigned(v);
    else { std::fprintf(stderr, "unknown option %s\n", argv[i - 1]); return 2; }
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (smoke) blocks = 2, threads = 64, rounds = 1, reps = 1;
  if (blocks == 0) blocks = prop.multiProcessorCount;
  if (threads < 32 || threads > 1024 || threads % 32 || blocks < 1 || rounds < 1 || reps < 1) {
    std::fprintf(stderr, "usage: lab03_locks [--blocks B] [--threads 32..1024, a multiple of 32] [--rounds R] "
                         "[--reps N] [--backoff NS] [--smoke]\n");
    return 2;
  }
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab03_locks: grid %d x %d, %d round(s) per thread, best of %d runs, bucket backoff %u ns\n", blocks,
              threads, rounds, reps, backoff);
  std::printf("device: %s (%d SMs, cc %d.%d)\ndate: %s\n\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, date);

  std::vector<Row> rows;
  rows.push_back(count_row("global", lab03::count_locked, blocks, threads, rounds, reps, false));
  rows.push_back(count_row("global+backoff", lab03::count_backoff, blocks, threads, rounds, reps, false));
  rows.push_back(count_row("warp-aggregated", lab03::count_warp_aggregated, blocks, threads, rounds, reps, true));
  // One key per thread and round, from a fixed generator.
  std::vector<int> keys(size_t(blocks) * threads * rounds);
  unsigned x = 12345u;
  for (int& k : keys) {
    x = x * 1103515245u + 12345u;
    k = int(x >> 3);
  }
  for (int nb : {1, 64, 4096}) {
    rows.push_back(bucket_row("buckets " + std::to_string(nb), keys, nb, 0, blocks, threads, reps));
    rows.push_back(bucket_row("buckets " + std::to_string(nb) + "+backoff", keys, nb, backoff, blocks, threads, reps));
  }

  std::printf("%-22s %12s %16s %16s  %s\n", "version", "time (ms)", "sections/s", "work/s", "check");
  bool all_ok = true;
  for (const Row& r : rows) {
    std::printf("%-22s %12.3f %16.3e %16.3e  %s\n", r.name.c_str(), r.ms, r.sections / (r.ms * 1e-3),
                r.work / (r.ms * 1e-3), r.ok ? "exact" : "WRONG");
    all_ok = all_ok && r.ok;
  }
  std::printf("\nwork: increments (counting kernels) or keys inserted (buckets); warp-aggregated does 32\n"
              "increments per critical section.\n");
  return all_ok ? 0 : 1;
}
