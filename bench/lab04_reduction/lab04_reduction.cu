// Lab 04's GPU measurement (LABS.md, "04 reductions"): the lab's grid-wide int32 sum,
// lab04::reduce_sum_int32 of task 7 (fast.cu of labs/04-reductions, linked in: the reference
// solution's, or the student's; labs/CMakeLists.txt), and the variants of reduce_variants.cuh,
// against cub::DeviceReduce::Sum and a device-to-device copy of the same bytes, all in the same run.
//
//   lab04_reduction [--log2n K] [--reps N] [--warmup W] [--sweep] [--no-small-checks] [--seed S]
//                   [--filter TEXT]
//
// Default: 2^28 int32 (1 GiB), 200 timed rounds after 5 warm-up rounds. What it does:
//   1. Checks every version (CUB's too) on fresh random inputs of awkward sizes (0, 1, 3, ...,
//      not multiples of 4) starting at each of the 4 int offsets from a 16-byte boundary.
//   2. Fills the 1 GiB input with random 32-bit values and checks every version on it against a
//      host sum. The sum is the int32 sum with wrap-around (modulo 2^32); the host adds in int64
//      and keeps the low 32 bits. Each output is poisoned before it is written.
//   3. Times every version with CUDA events: each round runs every version once, in a new random
//      order (so that no version always follows the copy, which leaves dirty lines in L2). A
//      round is queued in one go and waited for once, so launches do not wait for the host
//      (except the first of a round, one sample in eleven, which the median ignores).
//   4. Checks every version's output of the last timed round again and prints the table:
//      best and median time, GB/s read (input bytes / time), the median's ratio to CUB's and to
//      the copy's GB/s, and the check. The copy's GB/s counts the bytes read AND written (what
//      the memory moved); its check sums the copy.
// --sweep adds a second table: block size, loads in flight, load flavour and grid size, with
// CUB timed again in the same rounds. --filter TEXT keeps only our versions whose name contains
// TEXT (and the reference), e.g. to profile a few of them with ncu.
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "lab04_fast.cuh"
// The variants the reference was tuned from (block size, loads in flight, load flavour, layout,
// finish). A student release has the program without them: it then times CUB, the copy and
// fast.cu only, and --sweep is refused.
#if __has_include("reduce_variants.cuh")
#include "reduce_variants.cuh"
#define LAB04_HAVE_VARIANTS 1
#else
#define LAB04_HAVE_VARIANTS 0
#endif
#include "synclab/cuda_check.h"

namespace {

using Run = std::function<void(const int* in, size_t n, int* out)>;

struct Version {
  std::string name;
  Run run;
  bool is_copy = false;
  int blocks = 0;  // grid of the first kernel (0: not ours)
};

// splitmix64: fast, good enough to fill a gigabyte with values that hide indexing mistakes.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

void fill_random(std::vector<int>& v, size_t n, uint64_t seed) {
  Rng r{seed};
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const uint64_t x = r.next();
    v[i] = int(uint32_t(x));
    v[i + 1] = int(uint32_t(x >> 32));
  }
  if (i < n) v[i] = int(uint32_t(r.next()));
}

// The host reference: exact int64 sum; its low 32 bits are the expected int32 result.
int64_t host_sum(const int* v, size_t n) {
  int64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += v[i];
  return s;
}
int wrap32(int64_t s) { return int(uint32_t(uint64_t(s))); }

// Writes a value into *d_out that the right answer is not, so a version that writes nothing fails.
void poison(int* d_out, int want) {
  const int bad = ~want;
  CHECK(cudaMemcpy(d_out, &bad, sizeof bad, cudaMemcpyHostToDevice));
}

int read_int(const int* d) {
  int h = 0;
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Timing {
  double best_ms = 0, median_ms = 0;
  bool ok = false;
};

// Times every version `reps` rounds (after `warmup` rounds), each round in a new random order,
// queued back to back; then checks each version's output of the last round.
std::vector<Timing> measure(const std::vector<Version>& versions, const int* d_in, size_t n, int* d_copy,
                            const std::vector<int*>& d_outs, int want, int warmup, int reps, uint64_t seed,
                            const Version& checker) {
  const size_t V = versions.size();
  std::vector<std::vector<float>> ms(V);
  std::vector<cudaEvent_t> start(V), stop(V);
  for (size_t v = 0; v < V; ++v) {
    CHECK(cudaEventCreate(&start[v]));
    CHECK(cudaEventCreate(&stop[v]));
    poison(d_outs[v], want);
  }
  std::vector<size_t> order(V);
  for (size_t v = 0; v < V; ++v) order[v] = v;
  Rng rng{seed};
  for (int round = 0; round < warmup + reps; ++round) {
    for (size_t k = V; k > 1; --k) std::swap(order[k - 1], order[rng.next() % k]);  // Fisher-Yates
    for (size_t v : order) {
      CHECK(cudaEventRecord(start[v]));
      if (versions[v].is_copy)
        CHECK(cudaMemcpyAsync(d_copy, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice));
      else
        versions[v].run(d_in, n, d_outs[v]);
      CHECK(cudaEventRecord(stop[v]));
    }
    CHECK(cudaDeviceSynchronize());  // one wait per round; the events of every version are done
    CHECK(cudaGetLastError());
    if (round < warmup) continue;
    for (size_t v = 0; v < V; ++v) {
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start[v], stop[v]));
      ms[v].push_back(t);
    }
  }
  std::vector<Timing> out(V);
  for (size_t v = 0; v < V; ++v) {
    out[v].best_ms = *std::min_element(ms[v].begin(), ms[v].end());
    out[v].median_ms = median(ms[v]);
    if (versions[v].is_copy) {
      poison(d_outs[v], want);
      checker.run(d_copy, n, d_outs[v]);  // the copy is right if it sums to the same
      CHECK_KERNEL();
    }
    out[v].ok = read_int(d_outs[v]) == want;
    CHECK(cudaEventDestroy(start[v]));
    CHECK(cudaEventDestroy(stop[v]));
  }
  return out;
}

// ---- the versions ------------------------------------------------------------------------------

struct CubSum {
  void* temp = nullptr;
  size_t temp_bytes = 0;
  void run(const int* in, size_t n, int* out) {
    if (n > size_t(INT_MAX)) {
      std::fprintf(stderr, "CUB version: n = %zu does not fit in int\n", n);
      std::exit(2);
    }
    size_t need = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, need, in, out, int(n)));
    if (need > temp_bytes) {
      CHECK(cudaFree(temp));
      CHECK(cudaMalloc(&temp, need));
      temp_bytes = need;
    }
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, int(n)));
  }
};

#if LAB04_HAVE_VARIANTS
template <int BLOCK, int UNROLL, lab04::Finish F, lab04::Load L, lab04::Layout Y>
Version ours(const lab04::ReduceWorkspace& ws, int waves = 1, const char* extra = "") {
  const int blocks = waves * lab04::reduce_sum_blocks<BLOCK, UNROLL, F, L, Y>();
  if (blocks <= 0) {
    std::fprintf(stderr, "occupancy query failed\n");
    std::exit(1);
  }
  char name[96];
  std::snprintf(name, sizeof name, "int4 x%d %s %dt %s %s%s", UNROLL, lab04::finish_name(F), BLOCK,
                lab04::layout_name(Y), lab04::load_name(L), extra);
  Version v;
  v.name = name;
  v.blocks = blocks;
  const lab04::ReduceWorkspace* w = &ws;
  v.run = [w, blocks](const int* in, size_t n, int* out) {
    CHECK((lab04::reduce_sum<BLOCK, UNROLL, F, L, Y>(in, n, out, *w, blocks)));
  };
  return v;
}

template <int BLOCK>
Version scalar(const lab04::ReduceWorkspace& ws, int blocks) {
  Version v;
  v.name = "int x1 two-pass " + std::to_string(BLOCK) + "t plain loads";
  v.blocks = blocks;
  const lab04::ReduceWorkspace* w = &ws;
  v.run = [w, blocks](const int* in, size_t n, int* out) {
    CHECK(lab04::reduce_sum_scalar<BLOCK>(in, n, out, *w, blocks));
  };
  return v;
}
#endif  // LAB04_HAVE_VARIANTS

void print_table(const char* title, const std::vector<Version>& versions, const std::vector<Timing>& t, size_t n,
                 size_t cub_index, size_t copy_index) {
  const double bytes = double(n) * sizeof(int);
  const double cub_gbs = bytes / (t[cub_index].median_ms * 1e6);
  const double copy_gbs = 2 * bytes / (t[copy_index].median_ms * 1e6);
  int w = 8;
  for (const Version& v : versions) w = std::max(w, int(v.name.size()));
  std::printf("\n%s\n", title);
  std::printf("%-*s %7s %9s %9s %9s %9s %8s %8s  %s\n", w, "version", "blocks", "best ms", "median ms", "GB/s best",
              "GB/s med", "x CUB", "x copy", "check");
  for (size_t v = 0; v < versions.size(); ++v) {
    const double moved = versions[v].is_copy ? 2 * bytes : bytes;
    const double gbs_best = moved / (t[v].best_ms * 1e6);
    const double gbs_med = moved / (t[v].median_ms * 1e6);
    char blocks[16] = "-";
    if (versions[v].blocks > 0) std::snprintf(blocks, sizeof blocks, "%d", versions[v].blocks);
    std::printf("%-*s %7s %9.4f %9.4f %9.1f %9.1f %8.3f %8.3f  %s\n", w, versions[v].name.c_str(), blocks,
                t[v].best_ms, t[v].median_ms, gbs_best, gbs_med, gbs_med / cub_gbs, gbs_med / copy_gbs,
                t[v].ok ? "exact" : "WRONG");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, reps = 200, warmup = 5;
  uint64_t seed = 20261122;
  bool sweep = false, small_checks = true;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sweep") { sweep = true; continue; }
    if (a == "--no-small-checks") { small_checks = false; continue; }
    if (i + 1 >= argc) { std::fprintf(stderr, "option %s needs a value\n", argv[i]); return 2; }
    if (a == "--filter") { filter = argv[++i]; continue; }
    const long long v = std::atoll(argv[++i]);
    if (a == "--log2n") log2n = int(v);
    else if (a == "--reps") reps = int(v);
    else if (a == "--warmup") warmup = int(v);
    else if (a == "--seed") seed = uint64_t(v);
    else { std::fprintf(stderr, "unknown option %s\n", argv[i - 1]); return 2; }
  }
  if (log2n < 10 || log2n > 30 || reps < 1 || warmup < 0) {
    std::fprintf(stderr, "usage: lab04_reduction [--log2n 10..30] [--reps N>=1] [--warmup W>=0] [--sweep] "
                         "[--no-small-checks] [--seed S] [--filter TEXT]\n");
    return 2;
  }
  const size_t n = size_t(1) << log2n;

  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, device));
  int mem_khz = 0, bus_bits = 0;
  CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device));
  CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab04_reduction: sum of 2^%d int32 (%.2f GiB), best and median of %d rounds after %d warm-up\n", log2n,
              double(n) * sizeof(int) / (1 << 30), reps, warmup);
  std::printf("device: %s (%d SMs, cc %d.%d, L2 %d MB, memory bus %d bits at %d MHz: %.0f GB/s peak)\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize >> 20, bus_bits, mem_khz / 1000,
              2.0 * mem_khz * 1e3 * bus_bits / 8 / 1e9);
  std::printf("CUDA runtime %d, driver %d, CCCL %d\n", runtime, driver, CCCL_VERSION);
  std::printf("date: %s\n", date);

  lab04::ReduceWorkspace ws;
  CHECK(lab04::reduce_workspace_create(&ws));
  CubSum cub_sum;

  std::vector<Version> versions;
  {
    Version v;
    v.name = "cub::DeviceReduce::Sum";
    v.run = [&cub_sum](const int* in, size_t m, int* out) { cub_sum.run(in, m, out); };
    versions.push_back(v);
  }
  {
    Version v;
    v.name = "cudaMemcpy D2D (read+write)";
    v.is_copy = true;
    versions.push_back(v);
  }
  // The progression the lab walks through, then the reference (last row).
  Version reference;
#if LAB04_FAST_FROM_LABS
  reference.name = "reduce_sum_int32 (your fast.cu)";
#else
  reference.name = "reduce_sum_int32 (reference)";
#endif
  reference.blocks = lab04::reduce_sum_int32_blocks();
  {
    const lab04::ReduceWorkspace* w = &ws;
    const int blocks = reference.blocks;
    reference.run = [w, blocks](const int* in, size_t m, int* out) {
      CHECK(lab04::reduce_sum_int32(in, m, out, *w, blocks));
    };
  }
#if LAB04_HAVE_VARIANTS
  using lab04::Finish;
  using lab04::Layout;
  using lab04::Load;
  constexpr Finish LB = Finish::LastBlock;
  versions.push_back(scalar<256>(ws, reference.blocks));
  versions.push_back(ours<256, 1, Finish::TwoPass, Load::Ldg, Layout::Strided>(ws));
  versions.push_back(ours<256, 4, Finish::TwoPass, Load::Ldg, Layout::Strided>(ws));
  versions.push_back(ours<256, 4, LB, Load::Ldg, Layout::Strided>(ws));
  versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Strided>(ws));
  versions.push_back(ours<256, 4, Finish::TwoPass, Load::Streaming, Layout::Tiles>(ws));
  versions.push_back(ours<256, 4, Finish::Atomic, Load::Streaming, Layout::Tiles>(ws));
  versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Tiles>(ws));  // = the reference, templated
#endif
  versions.push_back(reference);
  const size_t cub_index = 0, copy_index = 1;

  std::vector<Version> sweep_versions;
#if LAB04_HAVE_VARIANTS
  if (sweep) {
    sweep_versions.push_back(versions[cub_index]);
    sweep_versions.push_back(versions[copy_index]);
    sweep_versions.push_back(reference);
    sweep_versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::Ldg, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::LastUse, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::NoAllocate, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::Prefetch256, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Chunks>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::Ldg, Layout::Chunks>(ws));
    sweep_versions.push_back(ours<256, 1, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 2, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<256, 8, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<128, 8, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<512, 4, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<1024, 2, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<1024, 4, LB, Load::Streaming, Layout::Tiles>(ws));
    sweep_versions.push_back(ours<512, 4, LB, Load::Streaming, Layout::Chunks>(ws));
    sweep_versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Strided>(ws, 4, " 4 waves"));
    sweep_versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Tiles>(ws, 4, " 4 waves"));
    sweep_versions.push_back(ours<256, 4, LB, Load::Streaming, Layout::Chunks>(ws, 5, " 5 waves"));
    sweep_versions.push_back(ours<256, 4, LB, Load::Ldg, Layout::Chunks>(ws, 5, " 5 waves"));
  }
#else
  if (sweep) {
    std::fprintf(stderr, "lab04_reduction: --sweep times the variants of bench/lab04_reduction/reduce_variants.cuh, "
                         "which this tree does not have\n");
    return 2;
  }
#endif
  if (!filter.empty()) {  // keep CUB, the copy, the reference and the versions whose name has `filter`
    auto keep = [&](std::vector<Version>& list, size_t fixed_front, bool keep_last) {
      std::vector<Version> kept(list.begin(), list.begin() + std::min(fixed_front, list.size()));
      for (size_t i = fixed_front; i < list.size(); ++i)
        if (list[i].name.find(filter) != std::string::npos || (keep_last && i + 1 == list.size()))
          kept.push_back(list[i]);
      list = kept;
    };
    keep(versions, 2, true);
    keep(sweep_versions, 2, false);
  }

  // Device buffers: the input (with 3 ints of slack for the offset checks), the copy's target,
  // one output per version.
  int *d_in = nullptr, *d_copy = nullptr;
  CHECK(cudaMalloc(&d_in, (n + 4) * sizeof(int)));
  CHECK(cudaMalloc(&d_copy, n * sizeof(int)));
  const size_t outs = std::max(versions.size(), sweep_versions.size());
  std::vector<int*> d_outs(outs);
  for (int*& p : d_outs) CHECK(cudaMalloc(&p, sizeof(int)));
  std::vector<int> h(n + 4);
  bool all_ok = true;

  // 1. Awkward sizes and offsets, fresh random data each time.
  if (small_checks) {
    const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 31, 1000, 1023, 4097, 65537, (size_t(1) << 20) + 3, 12345679};
    int cases = 0, failed = 0;
    uint64_t s = seed ^ 0x5a5a5a5aull;
    for (size_t m : sizes) {
      if (m > n) continue;
      for (int offset = 0; offset < 4; ++offset) {
        fill_random(h, m, ++s);
        const int want = wrap32(host_sum(h.data(), m));
        CHECK(cudaMemcpy(d_in + offset, h.data(), m * sizeof(int), cudaMemcpyHostToDevice));
        for (const std::vector<Version>* list : {&versions, &sweep_versions})
          for (const Version& v : *list) {
            if (v.is_copy) continue;
            poison(d_outs[0], want);
            v.run(d_in + offset, m, d_outs[0]);
            CHECK_KERNEL();
            const int got = read_int(d_outs[0]);
            ++cases;
            if (got != want) {
              ++failed;
              std::printf("WRONG: %s, n = %zu, offset %d: got %d, want %d\n", v.name.c_str(), m, offset, got, want);
            }
          }
      }
    }
    std::printf("checks on small inputs (%zu sizes x 4 offsets, every version): %d cases, %d wrong\n",
                sizeof sizes / sizeof sizes[0], cases, failed);
    all_ok = all_ok && failed == 0;
  }

  // 2. The big input.
  fill_random(h, n, seed);
  const int64_t exact = host_sum(h.data(), n);
  const int want = wrap32(exact);
  std::printf("input: %zu random int32 (seed %llu); exact sum %lld, as int32 (mod 2^32) %d\n", n,
              (unsigned long long)seed, (long long)exact, want);
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  for (const std::vector<Version>* list : {&versions, &sweep_versions})
    for (const Version& v : *list) {
      if (v.is_copy) continue;
      poison(d_outs[0], want);
      v.run(d_in, n, d_outs[0]);
      CHECK_KERNEL();
      const int got = read_int(d_outs[0]);
      if (got != want) {
        std::printf("WRONG before timing: %s: got %d, want %d\n", v.name.c_str(), got, want);
        all_ok = false;
      }
    }

  // 3-4. Time, check again, print.
  const std::vector<Timing> t =
      measure(versions, d_in, n, d_copy, d_outs, want, warmup, reps, seed + 1, reference);
  for (const Timing& x : t) all_ok = all_ok && x.ok;
  print_table("versions (GB/s read = input bytes / time; the copy's counts bytes read + written; x CUB and "
              "x copy: ratios of median GB/s)",
              versions, t, n, cub_index, copy_index);
  if (sweep) {
    const std::vector<Timing> ts =
        measure(sweep_versions, d_in, n, d_copy, d_outs, want, warmup, reps, seed + 2, reference);
    for (const Timing& x : ts) all_ok = all_ok && x.ok;
    print_table("sweep (CUB and the copy timed again in these rounds)", sweep_versions, ts, n, 0, 1);
  }

  const size_t ref_index = versions.size() - 1;
  const double bytes = double(n) * sizeof(int);
  std::printf("\n%s: %.3fx CUB's bandwidth and %.3fx the copy's (median times); best times: %.3fx and %.3fx\n",
              versions[ref_index].name.c_str(), t[cub_index].median_ms / t[ref_index].median_ms,
              (bytes / t[ref_index].median_ms) / (2 * bytes / t[copy_index].median_ms),
              t[cub_index].best_ms / t[ref_index].best_ms,
              (bytes / t[ref_index].best_ms) / (2 * bytes / t[copy_index].best_ms));

  lab04::reduce_workspace_destroy(&ws);
  CHECK(cudaFree(cub_sum.temp));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_copy));
  for (int* p : d_outs) CHECK(cudaFree(p));
  std::printf("%s\n", all_ok ? "all checks exact" : "SOME CHECKS WRONG");
  return all_ok ? 0 : 1;
}
