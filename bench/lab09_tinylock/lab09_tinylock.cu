// Lab 09's GPU measurement (LABS.md): the paper's 16-warp validation kernel (Li et al., ICS'15,
// section 5, Figure 4 and Table 2) on today's GPU. One block of 16 warps computes
// A[tid + 32] = A[tid] + tid, warp w waiting for warp w - 1: 15 hand-overs in sequence. The lab's
// seven schemes come from the reference solution (solutions/09-tiny-lock-wavefronts/chain.cu with
// the provided chain_kernel.cuh):
//   atom_lock   one atomicCAS spin lock per thread in shared memory (Listing 11)
//   warp_barr   named barriers: bar.sync by the consumer warp, bar.arrive by the producer (Listing 12)
//   shrd_lock   one atomicCAS spin lock per warp, lane 0 takes and releases it
//   tiny_lock   tinylock.cuh's emulated lock bits, one per thread (Listing 13, task 4a)
//   warp_vote   one emulated lock bit per warp, every lane tries, __any_sync says who got it
//   mbarrier    one shared-memory mbarrier per warp, 32 arrivals, waiters poll try_wait.parity
//   flag        one flag per warp: __syncwarp, lane 0's st.release.cta; ld.acquire.cta polls (task 4b)
// and variants written here, to find the fastest fine-grained hand-over (not lab tasks):
//   flag_lane   one flag per thread: each lane releases its own word, its consumer lane acquires it
//   flag_vol    one flag per warp; the consumer polls with ld.volatile, then one fence.acq_rel.cta
//   mbarrier1   one mbarrier per warp with 1 arrival: __syncwarp, then lane 0 arrives
//   value_rel   no flag at all: the word itself is the message (the paper's LDSLK reads the value
//               with its lock bit). A starts as a sentinel; the producer writes A[tid + 32] with
//               st.release.cta, the consumer polls A[tid] with ld.acquire.cta until it is no longer
//               the sentinel
//   value_rlx   the same with ld.relaxed.cta / st.relaxed.cta: one word carries everything the
//               consumer reads, so no other write needs ordering before it
//   value_sleepN  value_rlx with __nanosleep(N) between polls (N = 8, 32, 128): the waiting warps
//               leave the issue slots and the shared-memory pipe to the warp holding the token
//   flag_sleep32  flag with __nanosleep(32) between polls
// Then Needleman-Wunsch (task 5, the paper's section 6) on n x n cells, each version checked
// against a host fill before it is timed (CUDA events, median of 7 after one warm-up):
//   cells      one launch per anti-diagonal of cells, a thread per cell (written here)
//   tiles      task 5a: one launch per anti-diagonal of 16 x 16 tiles, a block per tile
//   dataflow   task 5b: one launch, a block per tile, each waiting for its north and west tiles'
//              ready flags (release/acquire at GPU scope); blocks take tiles in row-major order
//   dataflow-diag  the same with tiles taken in anti-diagonal order (written here), so that the
//              blocks resident at once lie along the wavefront instead of along a few rows
// Each scheme's result is checked against a host reference before its time counts. The time is
// warp 15's clock64() from the block barrier to the end of its hop (the SM's clock, in cycles),
// the median of 51 launches after 5 untimed ones.
//
//   lab09_tinylock [--reps N] [--nw N...] [--smoke]   (--smoke: 3 launches each and a 32 x 32
//   Needleman-Wunsch, for the simulator; --nw: the sizes, multiples of 16, default 1024 4096)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab09_kernels.cuh"
#include "nw_tile.cuh"

namespace {

enum class Variant { flag_lane, flag_vol, mbarrier1, value_rel, value_rlx, value_sleep8, value_sleep32, value_sleep128, flag_sleep32 };

// The polls of the sleeping variants: __nanosleep(ns) between two polls (PTX nanosleep: the warp is
// suspended for about that long, up to twice it), leaving the SM's issue slots and shared-memory
// pipe to the warp that holds the token.
template <Variant V>
constexpr unsigned kSleepNs = V == Variant::value_sleep8 ? 8 : V == Variant::value_sleep32 ? 32 : V == Variant::value_sleep128 ? 128 : V == Variant::flag_sleep32 ? 32 : 0;

constexpr int kSentinel = -2147483647 - 1;

__device__ inline int ld_volatile(const int* p) { return *static_cast<const volatile int*>(p); }
__device__ inline int ld_relaxed_cta(const int* p) {
  int v;
  asm volatile("ld.relaxed.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void st_relaxed_cta(int* p, int v) {
  asm volatile("st.relaxed.cta.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <Variant V>
__global__ void variant_kernel(const int* input, int* out, long long* cycles) {
  __shared__ ChainShared s;
  __shared__ int lane_flag[kChainThreads];
  const int tid = int(threadIdx.x), wid = tid / 32;
  if (tid < 32) s.A[tid] = input[tid];
  constexpr bool kValue = V == Variant::value_rel || V == Variant::value_rlx || V == Variant::value_sleep8 ||
                         V == Variant::value_sleep32 || V == Variant::value_sleep128;
  s.A[tid + 32] = kValue ? kSentinel : -1;
  lane_flag[tid] = 0;
  if (tid < kChainWarps) {
    s.ready[tid] = 0;
    if constexpr (V == Variant::mbarrier1)
      asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(unsigned(__cvta_generic_to_shared(&s.mbar[tid]))), "r"(1)
                   : "memory");
  }
  __syncthreads();
  const long long t0 = clock64();
  if constexpr (V == Variant::value_rel) {
    int in = kSentinel;
    if (wid == 0)
      in = s.A[tid];
    else
      while ((in = ld_acquire_cta(&s.A[tid])) == kSentinel) {
      }
    st_release_cta(&s.A[tid + 32], in + tid);
  } else if constexpr (V == Variant::value_rlx) {
    int in = kSentinel;
    if (wid == 0)
      in = s.A[tid];
    else
      while ((in = ld_relaxed_cta(&s.A[tid])) == kSentinel) {
      }
    st_relaxed_cta(&s.A[tid + 32], in + tid);
  } else if constexpr (V == Variant::value_sleep8 || V == Variant::value_sleep32 || V == Variant::value_sleep128) {
    int in = kSentinel;
    if (wid == 0)
      in = s.A[tid];
    else
      while ((in = ld_relaxed_cta(&s.A[tid])) == kSentinel) __nanosleep(kSleepNs<V>);
    st_relaxed_cta(&s.A[tid + 32], in + tid);
  } else if constexpr (V == Variant::flag_sleep32) {
    if (wid > 0)
      while (ld_acquire_cta(&s.ready[wid - 1]) == 0) __nanosleep(kSleepNs<V>);
    s.A[tid + 32] = s.A[tid] + tid;
    __syncwarp();
    if (tid % 32 == 0) st_release_cta(&s.ready[wid], 1);
  } else if constexpr (V == Variant::flag_lane) {
    if (wid > 0)
      while (ld_acquire_cta(&lane_flag[tid - 32]) == 0) {
      }
    s.A[tid + 32] = s.A[tid] + tid;
    st_release_cta(&lane_flag[tid], 1);
  } else if constexpr (V == Variant::flag_vol) {
    if (wid > 0) {
      while (ld_volatile(&s.ready[wid - 1]) == 0) {
      }
      __threadfence_block();
    }
    s.A[tid + 32] = s.A[tid] + tid;
    __syncwarp();
    if (tid % 32 == 0) st_release_cta(&s.ready[wid], 1);
  } else {
    if (wid > 0) {
      const unsigned bar = unsigned(__cvta_generic_to_shared(&s.mbar[wid - 1]));
      unsigned done = 0;
      do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t" SYNCLAB_MBAR_WAIT ".parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(bar), "r"(0)
            : "memory");
      } while (!done);
    }
    s.A[tid + 32] = s.A[tid] + tid;
    __syncwarp();
    if (tid % 32 == 0) {
      [[maybe_unused]] unsigned long long state;
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1];"
                   : "=l"(state)
                   : "r"(unsigned(__cvta_generic_to_shared(&s.mbar[wid])))
                   : "memory");
    }
  }
  if (tid == kChainThreads - 32) cycles[0] = clock64() - t0;
  __syncthreads();
  out[tid] = s.A[tid + 32];
}

void launch_variant(Variant v, const int* input, int* out, long long* cycles) {
  switch (v) {
    case Variant::flag_lane: variant_kernel<Variant::flag_lane><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::flag_vol: variant_kernel<Variant::flag_vol><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::mbarrier1: variant_kernel<Variant::mbarrier1><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::value_rel: variant_kernel<Variant::value_rel><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::value_rlx: variant_kernel<Variant::value_rlx><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::value_sleep8: variant_kernel<Variant::value_sleep8><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::value_sleep32: variant_kernel<Variant::value_sleep32><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::value_sleep128: variant_kernel<Variant::value_sleep128><<<1, kChainThreads>>>(input, out, cycles); break;
    case Variant::flag_sleep32: variant_kernel<Variant::flag_sleep32><<<1, kChainThreads>>>(input, out, cycles); break;
  }
}

// ---- Needleman-Wunsch ---------------------------------------------------------------------------
// Cells (i, j) with i + j == d + 2, 1 <= i, j <= n: one thread each.
__global__ void nw_cells(int* S, const int* a, const int* b, int n, int d) {
  const int lo = max(1, d + 2 - n);
  const int i = lo + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = d + 2 - i;
  if (i > n || j < 1) return;
  const int w = n + 1;
  S[i * w + j] = max(S[(i - 1) * w + j - 1] + nw_match(a[i - 1], b[j - 1]),
                     max(S[(i - 1) * w + j] - kNwGap, S[i * w + j - 1] - kNwGap));
}

std::vector<int> host_nw(const std::vector<int>& a, const std::vector<int>& b, int n) {
  const int w = n + 1;
  std::vector<int> S(size_t(w) * w);
  for (int i = 0; i <= n; ++i) S[size_t(i) * w] = -i * kNwGap;
  for (int j = 0; j <= n; ++j) S[size_t(j)] = -j * kNwGap;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      S[size_t(i) * w + j] = std::max(S[size_t(i - 1) * w + j - 1] + nw_match(a[i - 1], b[j - 1]),
                                      std::max(S[size_t(i - 1) * w + j] - kNwGap, S[size_t(i) * w + j - 1] - kNwGap));
  return S;
}

// Ticket t of T x T tiles in anti-diagonal order: diagonals 0, 1, ... in turn (every tile's north and
// west neighbours come earlier). The upper-left triangle directly, the rest mirrored.
__device__ inline void diagonal_tile(int t, int T, int& ti, int& tj) {
  const bool upper = t < T * (T + 1) / 2;
  const int u = upper ? t : T * T - 1 - t;
  int d = int((sqrtf(8.0f * float(u) + 1.0f) - 1.0f) * 0.5f);
  while ((d + 1) * (d + 2) / 2 <= u) ++d;
  while (d * (d + 1) / 2 > u) --d;
  const int k = u - d * (d + 1) / 2;  // 0..d along diagonal d
  ti = upper ? k : T - 1 - k;
  tj = upper ? d - k : T - 1 - (d - k);
}

__global__ void nw_dataflow_diag(int* S, const int* a, const int* b, int n, int* ready, int* next_tile) {
  __shared__ int tile;
  const int T = n / kNwTile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1);
  __syncthreads();
  int ti, tj;
  diagonal_tile(tile, T, ti, tj);
  if (threadIdx.x == 0) {
    if (ti > 0)
      while (ld_acquire_gpu(&ready[(ti - 1) * T + tj]) == 0) {
      }
    if (tj > 0)
      while (ld_acquire_gpu(&ready[ti * T + tj - 1]) == 0) {
      }
  }
  __syncthreads();
  nw_tile(S, a, b, n, ti, tj);
  if (threadIdx.x == 0) st_release_gpu(&ready[ti * T + tj], 1);
}

enum class NwWay { cells, tiles, dataflow, dataflow_diag };
const char* nw_name(NwWay v) {
  return v == NwWay::cells ? "cells" : v == NwWay::tiles ? "tiles" : v == NwWay::dataflow ? "dataflow" : "dataflow-diag";
}

// One fill of S (its row 0 and column 0 already hold the gap penalties); ready and next zeroed first.
void nw_fill(NwWay v, int* S, const int* a, const int* b, int n, int* ready, int* next) {
  const int tiles = n / kNwTile;
  if (v == NwWay::cells) {
    for (int d = 0; d < 2 * n - 1; ++d) {
      const int count = d < n ? d + 1 : 2 * n - 1 - d;
      nw_cells<<<(count + 127) / 128, 128>>>(S, a, b, n, d);
    }
  } else if (v == NwWay::tiles) {
    nw_wavefront(S, a, b, n);
  } else {
    CHECK(cudaMemsetAsync(ready, 0, size_t(tiles) * tiles * sizeof(int)));
    CHECK(cudaMemsetAsync(next, 0, sizeof(int)));
    if (v == NwWay::dataflow)
      nw_dataflow<<<tiles * tiles, kNwTile>>>(S, a, b, n, ready, next);
    else
      nw_dataflow_diag<<<tiles * tiles, kNwTile>>>(S, a, b, n, ready, next);
  }
  CHECK(cudaGetLastError());
}

// Times the three versions at size n; false when one differs from the host fill.
bool nw_table(int n, int reps, bool smoke) {
  std::vector<int> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));  // letters 0..3, fixed
  for (int i = 0; i < n; ++i) a[size_t(i)] = (i * 7 + 3) % 4, b[size_t(i)] = (i * i * 5 + i / 3 + 1) % 4;
  const std::vector<int> want = host_nw(a, b, n);
  const int w = n + 1, tiles = n / kNwTile;
  int *dS, *da, *db, *ready, *next;
  CHECK(cudaMalloc(&dS, size_t(w) * w * sizeof(int)));
  CHECK(cudaMalloc(&da, size_t(n) * sizeof(int)));
  CHECK(cudaMalloc(&db, size_t(n) * sizeof(int)));
  CHECK(cudaMalloc(&ready, size_t(tiles) * tiles * sizeof(int)));
  CHECK(cudaMalloc(&next, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), size_t(n) * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> border(size_t(w) * w, 0);
  for (int i = 0; i <= n; ++i) border[size_t(i) * w] = -i * kNwGap, border[size_t(i)] = -i * kNwGap;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  bool ok = true;
  std::printf("| %d x %d |", n, n);
  for (NwWay v : {NwWay::cells, NwWay::tiles, NwWay::dataflow, NwWay::dataflow_diag}) {
    std::vector<float> ms;
    for (int k = 0; k < reps + (smoke ? 0 : 1); ++k) {
      CHECK(cudaMemcpy(dS, border.data(), border.size() * sizeof(int), cudaMemcpyHostToDevice));
      CHECK(cudaEventRecord(e0));
      nw_fill(v, dS, da, db, n, ready, next);
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, e0, e1));
      if (k == 0) {
        std::vector<int> got(border.size());
        CHECK(cudaMemcpy(got.data(), dS, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
        if (got != want) {
          std::printf(" WRONG (%s) |", nw_name(v));
          ok = false;
          break;
        }
      }
      if (smoke || k >= 1) ms.push_back(t);
    }
    if (ms.empty()) continue;
    std::sort(ms.begin(), ms.end());
    std::printf(" %.3f |", double(ms[ms.size() / 2]));
  }
  std::printf(" %d | %d | 1 |\n", 2 * n - 1, 2 * tiles - 1);
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  for (int* p : {dS, da, db, ready, next}) CHECK(cudaFree(p));
  return ok;
}

struct Row {
  std::string name;
  int scheme;  // 0..6: the lab's; 7..: the variants above
  const char* what;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 51;
  bool smoke = false;
  std::vector<int> nw_sizes = {1024, 4096};
  bool nw_given = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--smoke"))
      smoke = true, reps = 3;
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--nw") && i + 1 < argc) {
      nw_sizes.clear();
      nw_given = true;
      while (i + 1 < argc && argv[i + 1][0] != '-') {
        const int n = std::atoi(argv[++i]);
        if (n < kNwTile || n % kNwTile) {
          std::fprintf(stderr, "lab09_tinylock: --nw takes multiples of %d, not '%s'\n", kNwTile, argv[i]);
          return 2;
        }
        nw_sizes.push_back(n);
      }
    } else {
      std::fprintf(stderr, "usage: lab09_tinylock [--reps N] [--nw N...] [--smoke]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab09_tinylock: %s, %s; the 16-warp validation kernel, 15 hand-overs; median of %d launches\n",
              prop.name, date, reps);

  std::vector<int> input(32);
  for (int i = 0; i < 32; ++i) input[size_t(i)] = (i * 37 + 11) % 1000;
  std::vector<int> want(input);
  want.resize(32 + kChainThreads);
  for (int t = 0; t < kChainThreads; ++t) want[size_t(t + 32)] = want[size_t(t)] + t;

  int *d_in = nullptr, *d_out = nullptr;
  long long* d_cycles = nullptr;
  CHECK(cudaMalloc(&d_in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&d_out, kChainThreads * sizeof(int)));
  CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
  CHECK(cudaMemcpy(d_in, input.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));

  const std::vector<Row> rows = {
      {"atom_lock", 0, "lab: atomicCAS lock per thread (Listing 11)"},
      {"warp_barr", 1, "lab: bar.sync / bar.arrive (Listing 12)"},
      {"shrd_lock", 2, "lab: atomicCAS lock per warp"},
      {"tiny_lock", 3, "lab: emulated lock bit per thread (Listing 13)"},
      {"warp_vote", 4, "lab: emulated lock bit per warp + __any_sync"},
      {"mbarrier", 5, "lab: mbarrier per warp, 32 arrivals"},
      {"flag", 6, "lab: flag per warp, release/acquire"},
      {"flag_lane", 7, "variant: flag per thread, release/acquire"},
      {"flag_vol", 8, "variant: flag per warp, volatile poll + fence"},
      {"mbarrier1", 9, "variant: mbarrier per warp, 1 arrival"},
      {"value_rel", 10, "variant: the word is the message, release/acquire"},
      {"value_rlx", 11, "variant: the word is the message, relaxed"},
      {"value_sleep8", 12, "variant: value_rlx, __nanosleep(8) between polls"},
      {"value_sleep32", 13, "variant: value_rlx, __nanosleep(32) between polls"},
      {"value_sleep128", 14, "variant: value_rlx, __nanosleep(128) between polls"},
      {"flag_sleep32", 15, "variant: flag, __nanosleep(32) between polls"},
  };
  std::vector<long long> median(rows.size(), 0);
  bool ok = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<long long> samples;
    for (int k = 0; k < reps + (smoke ? 0 : 5); ++k) {
      CHECK(cudaMemset(d_out, 0, kChainThreads * sizeof(int)));
      if (rows[r].scheme < kSchemes)
        launch_chain(Scheme(rows[r].scheme), d_in, d_out, d_cycles);
      else
        launch_variant(Variant(rows[r].scheme - kSchemes), d_in, d_out, d_cycles);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      std::vector<int> out(kChainThreads);
      long long c = 0;
      CHECK(cudaMemcpy(out.data(), d_out, kChainThreads * sizeof(int), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost));
      if (!std::equal(out.begin(), out.end(), want.begin() + 32)) {
        std::printf("%s: WRONG result in launch %d\n", rows[r].name.c_str(), k);
        ok = false;
        break;
      }
      if (smoke || k >= 5) samples.push_back(c);
    }
    if (samples.empty()) continue;
    std::sort(samples.begin(), samples.end());
    median[r] = samples[samples.size() / 2];
  }
  const double atom = double(median[0]), barr = double(median[1]);
  std::printf("\n| scheme | cycles (median) | cycles per hop | speed vs atom_lock | speed vs warp_barr | what |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | --- |\n");
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!median[r]) continue;
    std::printf("| %s | %lld | %.0f | x%.2f | x%.2f | %s |\n", rows[r].name.c_str(), median[r],
                double(median[r]) / 15.0, atom / double(median[r]), barr / double(median[r]), rows[r].what);
  }
  std::printf(
      "\n(speed = the row's cycles divided into atom_lock's or warp_barr's: above 1 is faster, as in the "
      "paper's Table 2)\n");
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_cycles));

  if (smoke && !nw_given) nw_sizes = {32};
  const int nw_reps = smoke ? 1 : 7;
  std::printf("\nNeedleman-Wunsch (task 5), milliseconds per fill (median of %d, each version checked against a host fill):\n",
              nw_reps);
  std::printf("| cells | one launch per cell diagonal | task 5a: per tile diagonal | task 5b: dataflow, one launch | "
              "dataflow, tiles in diagonal order | launches (cells) | launches (tiles) | launches (dataflow) |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int n : nw_sizes) ok = nw_table(n, nw_reps, smoke) && ok;
  return ok ? 0 : 1;
}
