// Lab 02's GPU measurement (LABS.md "GPU: the correct locks run; the cost per critical section vs
// an atomic lock"). The same provided critical section (lab02_kernels.cuh) under three locks:
//   peterson  the reference solution's Peterson lock, two threads (lane 0 of two warps; two blocks)
//   bakery    the reference solution's bakery lock, n threads (lane 0 of n warps), n = 2..32
//   atomic    atomicCAS with acquire to take a lock word, a release store to give it back
// Each configuration is checked before it is timed: the plain counter must equal the number of
// critical sections and no entry may find another thread inside.
//
//   lab02_locks [--rounds R] [--reps K]
//
// Prints the device, the date and a table: nanoseconds per critical section (best of K runs,
// CUDA events) and the ratio to the atomic lock with the same threads. On the simulator use
// --smoke (few rounds, a quick correctness run).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab02_kernels.cuh"

namespace {

using lab02::CriticalState;
using lab02::Ref;

__global__ void atomic_lock_bench(int* lock, CriticalState* cs, int n, int rounds, int placement) {
  const int me = lab02::participant(placement, n, ~0u);
  if (me < 0) return;
  Ref word(*lock);
  for (int r = 0; r < rounds; ++r) {
    int expected = 0;
    while (!word.compare_exchange_weak(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed))
      expected = 0;
    lab02::critical_section(cs, me, true);
    word.store(0, cuda::memory_order_release);
  }
}

enum class Kind { atomic, peterson, bakery };
const char* kind_name(Kind k) { return k == Kind::atomic ? "atomic" : k == Kind::peterson ? "peterson" : "bakery"; }

struct Result {
  float best_ms = 0;
  bool ok = false;
  std::string why;
};

Result measure(Kind kind, int n, int placement, int rounds, int reps) {
  void* lock = nullptr;
  CriticalState* cs = nullptr;
  CHECK(cudaMalloc(&lock, sizeof(lab02::BakeryLock)));
  CHECK(cudaMalloc(&cs, sizeof(CriticalState)));
  const dim3 grid = placement == lab02::kBlocks ? dim3(n) : dim3(1);
  const dim3 block = placement == lab02::kBlocks ? dim3(1) : dim3(32 * n);
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  Result res;
  res.ok = true;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up
    CHECK(cudaMemset(lock, 0, sizeof(lab02::BakeryLock)));
    CHECK(cudaMemset(cs, 0, sizeof(CriticalState)));
    CHECK(cudaEventRecord(t0));
    switch (kind) {
      case Kind::atomic: atomic_lock_bench<<<grid, block>>>(static_cast<int*>(lock), cs, n, rounds, placement); break;
      case Kind::peterson:
        lab02::peterson_kernel<<<grid, block>>>(static_cast<lab02::TwoThreadLock*>(lock), cs, rounds, placement, 3u);
        break;
      case Kind::bakery:
        lab02::bakery_kernel<<<grid, block>>>(static_cast<lab02::BakeryLock*>(lock), cs, n, rounds, placement);
        break;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    CriticalState h;
    CHECK(cudaMemcpy(&h, cs, sizeof h, cudaMemcpyDeviceToHost));
    const int want = n * rounds;
    if (h.entries != want || h.counter != want || h.overlaps != 0 || h.bad_state != 0) {
      res.ok = false;
      res.why = "entries " + std::to_string(h.entries) + ", counter " + std::to_string(h.counter) + ", overlaps " +
                std::to_string(h.overlaps) + ", expected " + std::to_string(want);
    }
    if (rep > 0 && (res.best_ms == 0 || ms < res.best_ms)) res.best_ms = ms;
  }
  CHECK(cudaEventDestroy(t0));
  CHECK(cudaEventDestroy(t1));
  CHECK(cudaFree(lock));
  CHECK(cudaFree(cs));
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5000, reps = 5;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--smoke") { smoke = true; continue; }
    if (i + 1 >= argc) { std::fprintf(stderr, "usage: lab02_locks [--rounds R] [--reps K] [--smoke]\n"); return 2; }
    const int v = std::atoi(argv[++i]);
    if (a == "--rounds") rounds = v;
    else if (a == "--reps") reps = v;
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 2; }
  }
  if (smoke) rounds = 3, reps = 1;
  if (rounds < 1 || reps < 1) { std::fprintf(stderr, "--rounds and --reps must be positive\n"); return 2; }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab02_locks: %d critical sections per thread, best of %d runs\n", rounds, reps);
  std::printf("device: %s (%d SMs, cc %d.%d)\ndate: %s\n\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, date);
  std::printf("| lock | threads | placement | critical sections | ns per critical section | vs atomic |\n");
  std::printf("| --- | ---: | --- | ---: | ---: | ---: |\n");
  struct Config { Kind kind; int n; int placement; };
  std::vector<Config> configs = {{Kind::atomic, 2, lab02::kBlocks}, {Kind::peterson, 2, lab02::kBlocks},
                                 {Kind::atomic, 2, lab02::kWarps},  {Kind::peterson, 2, lab02::kWarps},
                                 {Kind::bakery, 2, lab02::kWarps}};
  for (int n : {4, 8, 16, 32}) {
    if (smoke && n > 4) break;
    configs.push_back({Kind::atomic, n, lab02::kWarps});
    configs.push_back({Kind::bakery, n, lab02::kWarps});
  }
  int failures = 0;
  float atomic_ms = 0;
  for (const Config& c : configs) {
    Result r = measure(c.kind, c.n, c.placement, rounds, reps);
    const double sections = double(c.n) * rounds;
    const double ns = r.best_ms * 1e6 / sections;
    if (c.kind == Kind::atomic) atomic_ms = r.best_ms;
    const char* where = c.placement == lab02::kBlocks ? "1 thread per block" : "lane 0 per warp, 1 block";
    if (!r.ok) {
      ++failures;
      std::printf("| %s | %d | %s | %.0f | WRONG: %s | |\n", kind_name(c.kind), c.n, where, sections, r.why.c_str());
      continue;
    }
    std::printf("| %s | %d | %s | %.0f | %.1f | %.2fx |\n", kind_name(c.kind), c.n, where, sections, ns,
                atomic_ms > 0 ? r.best_ms / atomic_ms : 0.0);
  }
  if (failures) std::printf("\n%d configuration(s) computed a wrong count: not timed meaningfully\n", failures);
  return failures ? 1 : 0;
}
