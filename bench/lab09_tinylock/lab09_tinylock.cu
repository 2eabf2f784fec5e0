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
//              ready flags (release/acquire at GPU scope); blocks take tiles along the
//              anti-diagonals (nw_tile_of_ticket), so that the blocks resident at once lie along
//              the wavefront
//   dataflow-rows  the same with tiles taken in row-major order (written here; the lab's first
//              order): the resident blocks then lie along a few rows of tiles
// Then Needleman-Wunsch in the paper's own framework (section 6, Table 3): the outer loop launches
// the tile diagonals as Rodinia does; a tile is a 32 x 32 array in shared memory whose first row
// and column hold the neighbours' cells (the halo), so it computes 31 x 31 cells and n is a
// multiple of 31 (the paper's sizes, 31 to 1984). Inside a tile (CUDA events, median of 21):
//   tile-wavefront  the data-parallel loop: one warp, the tile's anti-diagonals one at a time with
//                   __syncthreads() between (Rodinia's inner loop, the paper's "Data-Parallel")
//   tile-atomic     Listing 14: 32 x 32 threads, a cell per thread; each cell holds its own
//                   atomicExch lock in shared memory until it has fired, and takes (then puts back)
//                   its north and west neighbours' tokens, critical sections inside the loop
//   tile-tinylock   Listing 15: the same dataflow on tinylock.cuh's emulated lock bits, the bit of
//                   each cell's own word (32 x 32 ints = 4096 bytes: no two cells share a bit)
// Each scheme's result is checked against a host reference before its time counts. The time is
// warp 15's clock64() from the block barrier to the end of its hop (the SM's clock, in cycles),
// the median of 51 launches after 5 untimed ones.
//
// Then Needleman-Wunsch by warps that own strips of columns (nw_strips.cuh: strips-wavefront, a
// launch per diagonal of tiles; strips-dataflow, one launch; strips-dataflow-block, one launch
// with the hand-overs inside a block through shared memory), milliseconds per fill, n x n cells
// for n = 1024 .. 16384 (--nw-strips N...: only that table, for those sizes; --nw-strips-ways
// TEXT: only the versions whose name holds TEXT); a version whose shared memory does not fit the
// device prints "-". --nw-strips-profile N: where the dataflow versions' time goes, per strip (its
// start, its first west cells, its end).
//
// --trace FILE --nw-trace N records the tile dataflow fill of N x N cells ((N / 16)^2 tiles) with
// trace.cuh instead of timing anything: launch 0 with row-major tickets (dataflow-rows with
// records added), launch 1 with task 5b's anti-diagonal tickets. Each block records where it runs
// (BlockPlacement) and its ticket (a Mark, tag 1: a = ticket, b = tile); each tile, as it
// completes, takes a completion number from a counter and records it as a RegionUpdate of the
// "tile order" matrix (tiles x tiles ints), which the viewer's Wavefront window draws.
//
//   lab09_tinylock [--reps N] [--nw N...] [--nw-paper N...] [--smoke]
//   lab09_tinylock --nw-strips N... [--nw-strips-ways TEXT]
//   lab09_tinylock --nw-strips-profile N
//   lab09_tinylock --trace FILE [--nw-trace N]
//   (--smoke: 3 launches each, a 32 x 32 and a 62 x 62 Needleman-Wunsch, for the simulator; --nw:
//   the sizes, multiples of 16, default 1024 4096; --nw-paper: multiples of 31, default 31 62 124
//   248 496 992 1984; --nw-trace: a multiple of 16, default 1024)
//
// Where things are (the sections below, in this order):
//   Hand-over variants  Variant, variant_kernel (the variants' 16-warp kernel), launch_variant
//   Needleman-Wunsch    nw_cells, the host fill (host_nw), nw_dataflow_rows, nw_fill (any of the four);
//                       NwCase, NwBuffers; one version timed and checked (nw_time_in, nw_time); nw_table
//   Strips              StripWay, kStripWays, strips_init; nw_strips_profile, nw_strips_table
//   Paper's framework   paper_tile_origin; the three tile kernels (nwp_wavefront, nwp_atomic,
//                       nwp_tinylock); nwp_fill, nw_paper_table
//   Trace               nw_dataflow_traced, describe_order (what the completion order says), nw_trace
//   main                the options (--trace, --nw-strips-profile and --nw-strips run alone); the hand-over
//                       table (Row: the lab's schemes through launch_chain, then the variants); the
//                       Needleman-Wunsch tables
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>
#include <synclab/regions.h>
#include <synclab/trace.cuh>

#include "lab09_kernels.cuh"
#include "nw_tile.cuh"
#include "nw_strips.cuh"

namespace gt = synclab::gputrace;

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

// The tile dataflow with tickets in row-major order (written here; task 5b takes them along the
// anti-diagonals, nw_tile_of_ticket): the order the lab had first, kept for the comparison.
__global__ void nw_dataflow_rows(int* S, const int* a, const int* b, int n, int* ready, int* next_tile) {
  __shared__ int tile;
  const int T = n / kNwTile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1);
  __syncthreads();
  const int ti = tile / T, tj = tile % T;
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

enum class NwWay { cells, tiles, dataflow, dataflow_rows };
const char* nw_name(NwWay v) {
  return v == NwWay::cells ? "cells" : v == NwWay::tiles ? "tiles" : v == NwWay::dataflow ? "dataflow" : "dataflow-rows";
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
      nw_dataflow_rows<<<tiles * tiles, kNwTile>>>(S, a, b, n, ready, next);
  }
  CHECK(cudaGetLastError());
}

// The two sequences (letters 0..3, fixed), S's border (row 0 and column 0: the gap penalties; every
// other cell a poison value, so that a cell nobody wrote fails the check) and the host fill.
struct NwCase {
  int n;
  std::vector<int> a, b, border, want;
  explicit NwCase(int n_) : n(n_), a(size_t(n_)), b(size_t(n_)) {
    for (int i = 0; i < n; ++i) a[size_t(i)] = (i * 7 + 3) % 4, b[size_t(i)] = (i * i * 5 + i / 3 + 1) % 4;
    want = host_nw(a, b, n);
    const int w = n + 1;
    border.assign(size_t(w) * w, -123456789);
    for (int i = 0; i <= n; ++i) border[size_t(i) * w] = -i * kNwGap, border[size_t(i)] = -i * kNwGap;
  }
};

// Runs fill() reps times (plus one untimed warm-up unless smoke), each on a fresh matrix (init copied
// to dM), CUDA events around the fill; the first result must pass same(). The median in ms, or -1
// when the result was wrong.
template <class Fill, class Same>
float nw_time_in(const std::vector<int>& init, int* dM, int reps, bool smoke, Fill fill, Same same) {
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<float> ms;
  bool ok = true;
  for (int k = 0; k < reps + (smoke ? 0 : 1) && ok; ++k) {
    CHECK(cudaMemcpy(dM, init.data(), init.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(e0));
    fill();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (k == 0) {
      std::vector<int> got(init.size());
      CHECK(cudaMemcpy(got.data(), dM, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
      ok = same(got);
    }
    if (smoke || k >= 1) ms.push_back(t);
  }
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  if (!ok) return -1.0f;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The same on S (the lab's layout), compared with the host fill.
template <class Fill>
float nw_time(const NwCase& c, int* dS, int reps, bool smoke, Fill fill) {
  return nw_time_in(c.border, dS, reps, smoke, fill, [&](const std::vector<int>& got) { return got == c.want; });
}

struct NwBuffers {
  int *S = nullptr, *a = nullptr, *b = nullptr, *ready = nullptr, *next = nullptr;
  NwBuffers(const NwCase& c, int tiles) {
    const int w = c.n + 1;
    CHECK(cudaMalloc(&S, size_t(w) * w * sizeof(int)));
    CHECK(cudaMalloc(&a, size_t(c.n) * sizeof(int)));
    CHECK(cudaMalloc(&b, size_t(c.n) * sizeof(int)));
    CHECK(cudaMalloc(&ready, size_t(tiles) * tiles * sizeof(int)));
    CHECK(cudaMalloc(&next, sizeof(int)));
    CHECK(cudaMemcpy(a, c.a.data(), size_t(c.n) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, c.b.data(), size_t(c.n) * sizeof(int), cudaMemcpyHostToDevice));
  }
  ~NwBuffers() {
    for (int* p : {S, a, b, ready, next}) CHECK(cudaFree(p));
  }
  NwBuffers(const NwBuffers&) = delete;
  NwBuffers& operator=(const NwBuffers&) = delete;
};

// Times the four versions at size n; false when one differs from the host fill.
bool nw_table(int n, int reps, bool smoke) {
  const NwCase c(n);
  const int tiles = n / kNwTile;
  NwBuffers d(c, tiles);
  bool ok = true;
  std::printf("| %d x %d |", n, n);
  for (NwWay v : {NwWay::cells, NwWay::tiles, NwWay::dataflow, NwWay::dataflow_rows}) {
    const float ms = nw_time(c, d.S, reps, smoke, [&] { nw_fill(v, d.S, d.a, d.b, n, d.ready, d.next); });
    if (ms < 0) {
      std::printf(" WRONG (%s) |", nw_name(v));
      ok = false;
    } else {
      std::printf(" %.3f |", double(ms));
    }
  }
  std::printf(" %d | %d | 1 |\n", 2 * n - 1, 2 * tiles - 1);
  return ok;
}

// The strips table: the lab's 5a and the dataflow with diagonal tickets (16 x 16 tiles), then the
// strips (nw_strips.cuh): data-parallel (a launch per diagonal of tiles of 32R columns x RT rows)
// and dataflow (one launch), for R = 2, 4, 8 lanes' columns. Milliseconds per fill.
struct StripWay {
  const char* name;
  bool lab_layout;  // S as the lab has it (rows of n + 1), or strip_at's layout
  bool (*setup)();  // false: this device's shared memory per block is too small for it
  void (*fill)(int* S, const int* a, const int* b, int n, int* ready, int* next);
};
template <int R, int Q, int RT>
void strips_wave(int* S, const int* a, const int* b, int n, int*, int*) {
  nw_strips_wavefront_fill<R, Q>(S, a, b, n, RT);
}
template <int R, int Q>
void strips_flow(int* S, const int* a, const int* b, int n, int* ready, int* next) {
  nw_strips_dataflow_fill<R, Q>(S, a, b, n, ready, next);
}
template <int R, int Q, int K, bool Rows = false>
void strips_flow_block(int* S, const int* a, const int* b, int n, int* ready, int* next) {
  nw_strips_dataflow_block_fill<R, Q, K, Rows>(S, a, b, n, ready, next);
}
const StripWay kStripWays[] = {
    {"5a: 16 x 16 tiles, a launch per tile diagonal", true, [] { return true; }, [](int* S, const int* a, const int* b, int n, int*, int*) { nw_wavefront(S, a, b, n); }},
    {"strips-wavefront R=4 Q=2 RT=64", false, nw_strips_setup<4, 2>, strips_wave<4, 2, 64>},
    {"strips-wavefront R=4 Q=4 RT=128", false, nw_strips_setup<4, 4>, strips_wave<4, 4, 128>},
    {"strips-wavefront R=8 Q=2 RT=128", false, nw_strips_setup<8, 2>, strips_wave<8, 2, 128>},
    {"strips-dataflow R=4 Q=2", false, nw_strips_setup<4, 2>, strips_flow<4, 2>},
    {"strips-dataflow R=4 Q=4", false, nw_strips_setup<4, 4>, strips_flow<4, 4>},
    {"strips-dataflow R=8 Q=2", false, nw_strips_setup<8, 2>, strips_flow<8, 2>},
    {"strips-dataflow R=8 Q=4", false, nw_strips_setup<8, 4>, strips_flow<8, 4>},
    {"strips-dataflow-block R=4 Q=2 K=1", false, nw_strips_block_setup<4, 2, 1>, strips_flow_block<4, 2, 1>},
    {"strips-dataflow-block R=4 Q=2 K=2", false, nw_strips_block_setup<4, 2, 2>, strips_flow_block<4, 2, 2>},
    {"strips-dataflow-block R=4 Q=2 K=4", false, nw_strips_block_setup<4, 2, 4>, strips_flow_block<4, 2, 4>},
    {"strips-dataflow-block R=4 Q=2 K=6", false, nw_strips_block_setup<4, 2, 6>, strips_flow_block<4, 2, 6>},
    {"strips-dataflow-block R=4 Q=1 K=4", false, nw_strips_block_setup<4, 1, 4>, strips_flow_block<4, 1, 4>},
    {"strips-dataflow-block R=4 Q=1 K=8", false, nw_strips_block_setup<4, 1, 8>, strips_flow_block<4, 1, 8>},
    {"strips-dataflow-block R=8 Q=2 K=3", false, nw_strips_block_setup<8, 2, 3>, strips_flow_block<8, 2, 3>},
    {"strips-dataflow-block R=4 Q=2 K=2 rows", false, nw_strips_block_setup<4, 2, 2, true>, strips_flow_block<4, 2, 2, true>},
    {"strips-dataflow-block R=4 Q=2 K=4 rows", false, nw_strips_block_setup<4, 2, 4, true>, strips_flow_block<4, 2, 4, true>},
    {"strips-dataflow-block R=4 Q=2 K=6 rows", false, nw_strips_block_setup<4, 2, 6, true>, strips_flow_block<4, 2, 6, true>},
};

// The strips' matrix before a fill (strip_at's layout): row 0 and column 0 the gap penalties, every
// other cell a poison value, so that a cell nobody wrote fails the check.
std::vector<int> strips_init(int n) {
  std::vector<int> init(size_t(n + 1) * strip_pitch(n), -123456789);
  for (int i = 0; i <= n; ++i) init[size_t(strip_at(n, i, 0))] = -i * kNwGap, init[size_t(strip_at(n, 0, i))] = -i * kNwGap;
  return init;
}

// Where strips-dataflow's time goes: per strip, %globaltimer at its start, once its first chunk of
// west cells is there, at its end, and how many times it found a west cell not written yet.
// K > 0: strips-dataflow-block with K warps a block.
template <int R, int Q, int K = 0>
void nw_strips_profile(int n) {
  if (K == 0 ? !nw_strips_setup<R, Q>() : !nw_strips_block_setup<R, Q, (K > 0 ? K : 1)>()) return;
  const NwCase c(n);
  NwBuffers d(c, n / kNwTile);
  const int strips = n / (32 * R);
  const std::vector<int> init = strips_init(n);
  int* dM = nullptr;
  CHECK(cudaMalloc(&dM, init.size() * sizeof(int)));
  long long* st = nullptr;
  CHECK(cudaMalloc(&st, size_t(strips) * 4 * sizeof(long long)));
  for (int k = 0; k < 3; ++k) {
    CHECK(cudaMemcpy(dM, init.data(), init.size() * sizeof(int), cudaMemcpyHostToDevice));
    if (K == 0) {
      CHECK(cudaMemsetAsync(d.ready, 0, size_t(strips) * sizeof(int)));
      CHECK(cudaMemsetAsync(d.next, 0, sizeof(int)));
      nw_strips_dataflow<R, Q><<<strips, 32, StripShape<R, Q>::kWords * sizeof(int)>>>(dM, d.a, d.b, n, d.ready, d.next, st);
    } else {
      nw_strips_dataflow_block_fill<R, Q, (K > 0 ? K : 1)>(dM, d.a, d.b, n, d.ready, d.next, st);
    }
    CHECK(cudaDeviceSynchronize());
  }
  std::vector<long long> h(size_t(strips) * 4);
  CHECK(cudaMemcpy(h.data(), st, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  const long long t0 = h[0];
  std::printf("profile %s R=%d Q=%d K=%d n=%d: strip: start, first west cells there, end (us from strip 0's start), "
              "duration, waits\n",
              K == 0 ? "strips-dataflow" : "strips-dataflow-block", R, Q, K == 0 ? 1 : K, n);
  for (int s = 0; s < strips; ++s) {
    const long long* p = &h[size_t(s) * 4];
    if (s < 4 || s % 16 == 0 || s == strips - 1)
      std::printf("  %4d: %9.1f %9.1f %9.1f %9.1f %lld\n", s, (p[0] - t0) / 1e3, (p[1] - t0) / 1e3, (p[2] - t0) / 1e3,
                  (p[2] - p[1]) / 1e3, p[3]);
  }
  CHECK(cudaFree(st));
  CHECK(cudaFree(dM));
}

// --nw-strips-ways TEXT: only the versions whose name holds TEXT ("" : every one).
std::string g_strip_ways;

bool nw_strips_table(int n, int reps, bool smoke) {
  const NwCase c(n);
  const int tiles = n / kNwTile;
  NwBuffers d(c, tiles);
  // The strips' matrix and its device copy.
  const std::vector<int> init = strips_init(n);
  int* dM = nullptr;
  CHECK(cudaMalloc(&dM, init.size() * sizeof(int)));
  auto same = [&](const std::vector<int>& got) {
    for (int i = 0; i <= n; ++i)
      if (!std::equal(c.want.begin() + size_t(i) * (n + 1), c.want.begin() + size_t(i + 1) * (n + 1),
                      got.begin() + strip_at(n, i, 0)))
        return false;
    return true;
  };
  bool ok = true;
  std::printf("| %d x %d |", n, n);
  for (const StripWay& v : kStripWays) {
    if (std::strstr(v.name, g_strip_ways.c_str()) == nullptr) continue;
    if (!v.setup()) {
      std::printf(" - |");  // its ring does not fit this device's shared memory
      continue;
    }
    const float ms = v.lab_layout
                         ? nw_time(c, d.S, reps, smoke, [&] { v.fill(d.S, d.a, d.b, n, d.ready, d.next); })
                         : nw_time_in(init, dM, reps, smoke, [&] { v.fill(dM, d.a, d.b, n, d.ready, d.next); }, same);
    if (ms < 0) {
      std::printf(" WRONG (%s) |", v.name);
      ok = false;
    } else {
      std::printf(" %.3f |", double(ms));
    }
    std::fflush(stdout);
  }
  std::printf("\n");
  CHECK(cudaFree(dM));
  return ok;
}

// ---- Needleman-Wunsch in the paper's framework (section 6, Listings 14 and 15, Table 3) ----------
// A tile is a 32 x 32 array s in shared memory, s[y][x] = S(r0 + y, c0 + x): its row 0 and column
// 0 are the cells of the tiles north and west of it (or S's border), the other 31 x 31 are its own.
// The outer framework launches one kernel per anti-diagonal of tiles, a block per tile.
constexpr int kPaperTile = 32;
constexpr int kPaperCells = kPaperTile - 1;

// Block blockIdx.x of the launch for tile diagonal td: its tile's first row and column in S.
__device__ inline void paper_tile_origin(int n, int td, int& r0, int& c0) {
  const int tiles = n / kPaperCells;
  const int ti = max(0, td - (tiles - 1)) + int(blockIdx.x), tj = td - ti;
  r0 = ti * kPaperCells;
  c0 = tj * kPaperCells;
}

// tile-wavefront: one warp per tile. Thread x (1..31) owns column x and computes its cell of each
// anti-diagonal of the tile in turn, a block barrier after each (61 of them).
__global__ void nwp_wavefront(int* S, const int* a, const int* b, int n, int td) {
  __shared__ int s[kPaperTile][kPaperTile];
  __shared__ int letter_a[kPaperTile];
  int r0, c0;
  paper_tile_origin(n, td, r0, c0);
  const int w = n + 1, x = int(threadIdx.x);
  s[0][x] = S[r0 * w + c0 + x];
  s[x][0] = S[(r0 + x) * w + c0];
  letter_a[x] = x > 0 ? a[r0 + x - 1] : 0;
  const int letter_b = x > 0 ? b[c0 + x - 1] : 0;
  __syncthreads();
  for (int d = 0; d < 2 * kPaperCells - 1; ++d) {
    const int y = d + 2 - x;  // the cell (y, x) with y + x == d + 2
    if (x >= 1 && y >= 1 && y <= kPaperCells)
      s[y][x] = max(s[y - 1][x - 1] + nw_match(letter_a[y], letter_b), max(s[y - 1][x], s[y][x - 1]) - kNwGap);
    __syncthreads();
  }
  if (x >= 1)
    for (int y = 1; y < kPaperTile; ++y) S[(r0 + y) * w + c0 + x] = s[y][x];
}

// tile-atomic (Listing 14): thread (ty, tx) is the actor of cell s[ty][tx]. mutex[y][x] is 1 while
// cell (y, x) has not fired (its thread holds it from the start) and 0 once it has: the token its
// south and east neighbours take. A consumer takes a token with atomicExch(.., 1) == 0, reads the
// cell, and puts the token back (its other consumer needs it too). Every try is inside the loop
// and no lock is held across an iteration, so lanes of one warp never wait for each other inside
// a critical section (the SIMD deadlock of section 4.4.1 cannot happen, even under lockstep).
// Ordering: a producer writes its cell, then __threadfence_block(), then releases its lock; a
// consumer fences after taking the token and before reading the cell, and again before putting
// the token back, so that the consumer after it sees the cell too. The north-west cell is read
// after both tokens: its value reached the north (or west) neighbour before that one fired.
__global__ void nwp_atomic(int* S, const int* a, const int* b, int n, int td) {
  __shared__ int s[kPaperTile][kPaperTile];
  __shared__ int mutex[kPaperTile][kPaperTile];
  int r0, c0;
  paper_tile_origin(n, td, r0, c0);
  const int w = n + 1, tx = int(threadIdx.x), ty = int(threadIdx.y);
  const bool cell = tx != 0 && ty != 0;
  int p = 0;
  if (cell)
    p = nw_match(a[r0 + ty - 1], b[c0 + tx - 1]);
  else
    s[ty][tx] = S[(r0 + ty) * w + c0 + tx];
  mutex[ty][tx] = cell ? 1 : 0;  // lock self (nobody else can want it before the barrier); the halo is ready
  __syncthreads();
  if (cell) {
    bool north_ok = false, west_ok = false, done = false;
    int north = 0, west = 0;
    while (!done) {
      if (!north_ok && atomicExch(&mutex[ty - 1][tx], 1) == 0) {
        __threadfence_block();
        north = s[ty - 1][tx];
        north_ok = true;
        __threadfence_block();
        atomicExch(&mutex[ty - 1][tx], 0);  // put the token back
      }
      if (!west_ok && atomicExch(&mutex[ty][tx - 1], 1) == 0) {
        __threadfence_block();
        west = s[ty][tx - 1];
        west_ok = true;
        __threadfence_block();
        atomicExch(&mutex[ty][tx - 1], 0);
      }
      done = north_ok && west_ok;
      if (done) {  // fire
        s[ty][tx] = max(s[ty - 1][tx - 1] + p, max(north, west) - kNwGap);
        __threadfence_block();
        atomicExch(&mutex[ty][tx], 0);  // unlock self: the token for south and east
      }
    }
  }
  __syncthreads();
  if (cell) S[(r0 + ty) * w + c0 + tx] = s[ty][tx];
}

// tile-tinylock (Listing 15): the same actors on tinylock.cuh's emulated lock bits. A cell's token
// is the lock bit of its own word of s (the paper's LDSLK reads the word and tries its bit in one
// instruction; here tl_try_lock tries the bit, then the word is read). s is exactly 4096 bytes,
// so its 1024 words have 1024 different bits: no alias (section 4.4.2). tl_try_lock orders the
// reads after it, tl_unlock the writes before it.
__global__ void nwp_tinylock(int* S, const int* a, const int* b, int n, int td) {
  __shared__ int s[kPaperTile][kPaperTile];
  __shared__ TinyLockTable locks;
  int r0, c0;
  paper_tile_origin(n, td, r0, c0);
  const int w = n + 1, tx = int(threadIdx.x), ty = int(threadIdx.y);
  const bool cell = tx != 0 && ty != 0;
  int p = 0;
  if (cell)
    p = nw_match(a[r0 + ty - 1], b[c0 + tx - 1]);
  else
    s[ty][tx] = S[(r0 + ty) * w + c0 + tx];
  if (ty == 0) locks.word[tx] = 0;  // tl_init, once per word (tl_init itself expects a 1-D block)
  __syncthreads();
  if (cell) tl_try_lock(locks, &s[ty][tx]);  // lock self: always succeeds, the bit is this cell's alone
  __syncthreads();
  if (cell) {
    bool north_ok = false, west_ok = false, done = false;
    int north = 0, west = 0;
    while (!done) {
      if (!west_ok && tl_try_lock(locks, &s[ty][tx - 1])) {  // get west
        west = s[ty][tx - 1];
        west_ok = true;
        tl_unlock(locks, &s[ty][tx - 1]);  // restore the token
      }
      if (!north_ok && tl_try_lock(locks, &s[ty - 1][tx])) {  // get north
        north = s[ty - 1][tx];
        north_ok = true;
        tl_unlock(locks, &s[ty - 1][tx]);
      }
      done = north_ok && west_ok;
      if (done) {  // fire, then put self
        s[ty][tx] = max(s[ty - 1][tx - 1] + p, max(north, west) - kNwGap);
        tl_unlock(locks, &s[ty][tx]);
      }
    }
  }
  __syncthreads();
  if (cell) S[(r0 + ty) * w + c0 + tx] = s[ty][tx];
}

enum class PaperWay { wavefront, atomic, tinylock };

void nwp_fill(PaperWay v, int* S, const int* a, const int* b, int n) {
  const int tiles = n / kPaperCells;
  for (int td = 0; td < 2 * tiles - 1; ++td) {
    const int count = td < tiles ? td + 1 : 2 * tiles - 1 - td;
    if (v == PaperWay::wavefront)
      nwp_wavefront<<<count, kPaperTile>>>(S, a, b, n, td);
    else if (v == PaperWay::atomic)
      nwp_atomic<<<count, dim3(kPaperTile, kPaperTile)>>>(S, a, b, n, td);
    else
      nwp_tinylock<<<count, dim3(kPaperTile, kPaperTile)>>>(S, a, b, n, td);
  }
}

// The paper's Table 3 row for size n (microseconds); false when a version differs from the host.
bool nw_paper_table(int n, int reps, bool smoke) {
  const NwCase c(n);
  const int tiles = n / kPaperCells;
  NwBuffers d(c, 1);
  bool ok = true;
  std::printf("| %d x %d |", n, n);
  for (PaperWay v : {PaperWay::wavefront, PaperWay::atomic, PaperWay::tinylock}) {
    const float ms = nw_time(c, d.S, reps, smoke, [&] { nwp_fill(v, d.S, d.a, d.b, n); });
    if (ms < 0) {
      std::printf(" WRONG (%s) |", v == PaperWay::wavefront ? "tile-wavefront" : v == PaperWay::atomic ? "tile-atomic" : "tile-tinylock");
      ok = false;
    } else {
      std::printf(" %.1f |", double(ms) * 1000.0);
    }
  }
  std::printf(" %d x %d | %d |\n", tiles, tiles, 2 * tiles - 1);
  return ok;
}

// ---- a trace of the tile dataflow (--trace FILE --nw-trace N) -----------------------------------
constexpr uint16_t kTicketTag = 1;

// The tile dataflow with row-major tickets (kDiag false; dataflow-rows) or task 5b's (true: along the
// anti-diagonals, nw.cu's nw_dataflow) with records: the
// block's placement, its ticket, and the tile's completion number in order[tile].
template <bool kDiag>
__global__ void nw_dataflow_traced(gt::Handle h, int* S, const int* a, const int* b, int n, int* ready, int* next_tile,
                                   int* completed, int* order, uint16_t order_region) {
  gt::block_begin(h);
  __shared__ int tile;
  const int T = n / kNwTile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1);
  __syncthreads();
  int ti, tj;
  if (kDiag)
    nw_tile_of_ticket(tile, T, ti, tj);
  else
    ti = tile / T, tj = tile % T;
  if (threadIdx.x == 0) {
    gt::mark(h, kTicketTag, uint64_t(tile), uint64_t(ti * T + tj));
    if (ti > 0)
      while (ld_acquire_gpu(&ready[(ti - 1) * T + tj]) == 0) {
      }
    if (tj > 0)
      while (ld_acquire_gpu(&ready[ti * T + tj - 1]) == 0) {
      }
  }
  __syncthreads();
  nw_tile(S, a, b, n, ti, tj);
  if (threadIdx.x == 0) {
    const int k = atomicAdd(completed, 1) + 1;  // this tile completed k-th
    order[ti * T + tj] = k;
    gt::region_update(h, order_region, uint64_t(ti * T + tj), uint64_t(k));
    st_release_gpu(&ready[ti * T + tj], 1);
  }
}

// What the completion order says: for each tile row (and each tile anti-diagonal), the
// completions from its first tile to its last; the most rows (diagonals) in progress at once.
void describe_order(const std::vector<int>& order, int T) {
  std::vector<int> by_k(order.size());
  for (size_t t = 0; t < order.size(); ++t) by_k[size_t(order[t] - 1)] = int(t);
  for (int diag = 0; diag < 2; ++diag) {
    const int groups = diag ? 2 * T - 1 : T;
    std::vector<int> left(size_t(groups), 0), total(size_t(groups), 0);
    for (int t = 0; t < T * T; ++t) ++total[size_t(diag ? t / T + t % T : t / T)];
    left = total;
    int open = 0, most = 0;
    double sum = 0;
    for (int t : by_k) {
      const int g = diag ? t / T + t % T : t / T;
      if (left[size_t(g)] == total[size_t(g)]) ++open;
      if (--left[size_t(g)] == 0) --open;
      most = std::max(most, open + (left[size_t(g)] == 0 ? 1 : 0));
      sum += open;
    }
    std::printf("  %s in progress at once: at most %d, on average %.1f (of %d)\n", diag ? "tile diagonals" : "tile rows",
                most, sum / double(T * T), groups);
  }
}

bool nw_trace(const char* path, int n) {
  const NwCase c(n);
  const int T = n / kNwTile;
  NwBuffers d(c, T);
  int *completed = nullptr, *order = nullptr;
  CHECK(cudaMalloc(&completed, sizeof(int)));
  CHECK(cudaMalloc(&order, size_t(T) * T * sizeof(int)));
  if (synclab_region(order, size_t(T) * T * sizeof(int), "tile order", "matrix", T, T) != 0) return false;
  const int rid = gt::region_id(order);
  gt::Recorder rec(size_t(3) * T * T + 64);
  if (!rec.ok()) {
    std::fprintf(stderr, "lab09_tinylock: %s\n", rec.error().c_str());
    return false;
  }
  rec.header_extra()["needleman_wunsch"] = {{"n", n}, {"tile", kNwTile}, {"tiles", T},
                                            {"launch 0", "tiles taken in row-major order"},
                                            {"launch 1", "task 5b: tiles taken in anti-diagonal order"}};
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  bool ok = true;
  for (int diag = 0; diag < 2; ++diag) {
    CHECK(cudaMemcpy(d.S, c.border.data(), c.border.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d.ready, 0, size_t(T) * T * sizeof(int)));
    CHECK(cudaMemset(d.next, 0, sizeof(int)));
    CHECK(cudaMemset(completed, 0, sizeof(int)));
    CHECK(cudaMemset(order, 0, size_t(T) * T * sizeof(int)));
    const char* name = diag ? "nw_dataflow" : "nw_dataflow_rows";
    if (!rec.begin_launch(name, dim3(unsigned(T * T)), dim3(kNwTile))) {
      std::fprintf(stderr, "lab09_tinylock: %s\n", rec.error().c_str());
      ok = false;
      break;
    }
    if (diag)
      nw_dataflow_traced<true><<<T * T, kNwTile>>>(rec.handle(), d.S, d.a, d.b, n, d.ready, d.next, completed, order, uint16_t(rid));
    else
      nw_dataflow_traced<false><<<T * T, kNwTile>>>(rec.handle(), d.S, d.a, d.b, n, d.ready, d.next, completed, order, uint16_t(rid));
    if (!rec.end_launch()) {
      std::fprintf(stderr, "lab09_tinylock: %s\n", rec.error().c_str());
      ok = false;
      break;
    }
    std::vector<int> got(c.border.size()), ord(size_t(T) * T);
    CHECK(cudaMemcpy(got.data(), d.S, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ord.data(), order, ord.size() * sizeof(int), cudaMemcpyDeviceToHost));
    bool good = got == c.want;
    std::vector<int> seen(size_t(T) * T + 1, 0);
    for (int t = 0; t < T * T && good; ++t) {
      const int k = ord[size_t(t)];
      good = k >= 1 && k <= T * T && !seen[size_t(k)]++ && (t / T == 0 || k > ord[size_t(t - T)]) &&
             (t % T == 0 || k > ord[size_t(t - 1)]);
    }
    const auto& L = rec.launches().back();
    std::set<uint64_t> sms;
    for (const auto& e : L.events)
      if (e.kind == uint8_t(synclab::trace::EventKind::BlockPlacement)) sms.insert(e.b);
    std::printf("launch %d (%s, tiles in %s order): %s; %.1f us from the launch's begin stamp to its end stamp, %zu events, %llu "
                "dropped, blocks on %zu of %d SMs\n",
                diag, name, diag ? "anti-diagonal" : "row-major", good ? "result and completion order checked" : "WRONG",
                double(L.events.back().time - L.events.front().time) / 1000.0, L.events.size() - 2,
                (unsigned long long)L.dropped, sms.size(), prop.multiProcessorCount);
    if (good) describe_order(ord, T);
    ok = ok && good && L.dropped == 0;
  }
  std::string err;
  if (!rec.write(path, "lab09_tinylock", &err)) {
    std::fprintf(stderr, "lab09_tinylock: %s\n", err.c_str());
    ok = false;
  }
  CHECK(cudaFree(completed));
  CHECK(cudaFree(order));
  if (ok) std::printf("trace %s: %d x %d cells, %d x %d tiles, 2 launches\n", path, n, n, T, T);
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
  std::vector<int> nw_sizes = {1024, 4096}, paper_sizes = {31, 62, 124, 248, 496, 992, 1984};
  std::vector<int> strip_sizes = {1024, 2048, 4096, 8192, 16384};
  bool nw_given = false, paper_given = false, strips_only = false;
  int profile_n = 0;
  const char* trace_path = nullptr;
  int trace_n = 1024;
  // N... after an option: sizes that are multiples of `unit`.
  auto sizes = [&](int& i, std::vector<int>& out, int unit, const char* opt) {
    out.clear();
    while (i + 1 < argc && argv[i + 1][0] != '-') {
      const int n = std::atoi(argv[++i]);
      if (n < unit || n % unit) {
        std::fprintf(stderr, "lab09_tinylock: %s takes multiples of %d, not '%s'\n", opt, unit, argv[i]);
        return false;
      }
      out.push_back(n);
    }
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--smoke"))
      smoke = true, reps = 3;
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--nw")) {
      nw_given = true;
      if (!sizes(i, nw_sizes, kNwTile, "--nw")) return 2;
    } else if (!std::strcmp(argv[i], "--nw-strips-profile") && i + 1 < argc) {
      profile_n = std::atoi(argv[++i]);
      if (profile_n < 256 || profile_n % 256 || profile_n > kStripsMaxN) {
        std::fprintf(stderr, "lab09_tinylock: --nw-strips-profile takes a multiple of 256 up to 32768, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--nw-strips")) {
      strips_only = true;
      if (!sizes(i, strip_sizes, 256, "--nw-strips")) return 2;
      for (int n : strip_sizes)
        if (n > kStripsMaxN) {  // strip_at's int offsets
          std::fprintf(stderr, "lab09_tinylock: --nw-strips takes sizes up to %d, not %d\n", kStripsMaxN, n);
          return 2;
        }
    } else if (!std::strcmp(argv[i], "--nw-strips-ways") && i + 1 < argc) {
      g_strip_ways = argv[++i];
    } else if (!std::strcmp(argv[i], "--nw-paper")) {
      paper_given = true;
      if (!sizes(i, paper_sizes, kPaperCells, "--nw-paper")) return 2;
    } else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc) {
      trace_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--nw-trace") && i + 1 < argc) {
      trace_n = std::atoi(argv[++i]);
      if (trace_n < kNwTile || trace_n % kNwTile) {
        std::fprintf(stderr, "lab09_tinylock: --nw-trace takes a multiple of %d, not '%s'\n", kNwTile, argv[i]);
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: lab09_tinylock [--reps N] [--nw N...] [--nw-paper N...] [--smoke]\n"
                   "       lab09_tinylock --nw-strips N... [--nw-strips-ways TEXT]\n"
                   "       lab09_tinylock --nw-strips-profile N\n"
                   "       lab09_tinylock --trace FILE [--nw-trace N]\n");
      return 2;
    }
  }
  if (trace_path) return nw_trace(trace_path, trace_n) ? 0 : 1;
  if (smoke && !strips_only) strip_sizes = {256};
  auto strips = [&] {
    const int strip_reps = smoke ? 1 : 7;
    std::printf("\nNeedleman-Wunsch by warps owning strips of columns (nw_strips.cuh), milliseconds per fill (median of "
                "%d, each version checked against a host fill):\n| cells |",
                strip_reps);
    for (const StripWay& v : kStripWays)
      if (std::strstr(v.name, g_strip_ways.c_str())) std::printf(" %s |", v.name);
    std::printf("\n| --- |");
    for (const StripWay& v : kStripWays)
      if (std::strstr(v.name, g_strip_ways.c_str())) std::printf(" ---: |");
    std::printf("\n");
    bool good = true;
    for (int n : strip_sizes) good = nw_strips_table(n, strip_reps, smoke) && good;
    return good;
  };
  if (profile_n) {
    nw_strips_profile<4, 2>(profile_n);
    nw_strips_profile<8, 2>(profile_n);
    nw_strips_profile<4, 2, 4>(profile_n);
    return 0;
  }
  if (strips_only) return strips() ? 0 : 1;
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
  std::printf("| cells | one launch per cell diagonal | task 5a: per tile diagonal | task 5b: dataflow, tiles along "
              "the diagonals | dataflow, tiles in row-major order | launches (cells) | launches (tiles) | launches (dataflow) |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int n : nw_sizes) ok = nw_table(n, nw_reps, smoke) && ok;

  // The paper's framework (Table 3): tile diagonals outside, 32 x 32 tiles with their halo inside.
  if (smoke && !paper_given) paper_sizes = {62};
  const int paper_reps = smoke ? 1 : 21;
  std::printf("\nNeedleman-Wunsch in the paper's framework (section 6, Table 3): a launch per tile diagonal, "
              "31 x 31 cells per tile; microseconds per fill (median of %d, each version checked against a host "
              "fill):\n",
              paper_reps);
  std::printf("| cells | tile-wavefront (data-parallel, 32 threads) | tile-atomic (Listing 14, 32 x 32 threads) | "
              "tile-tinylock (Listing 15, 32 x 32 threads) | tiles | launches |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (int n : paper_sizes) ok = nw_paper_table(n, paper_reps, smoke) && ok;
  ok = strips() && ok;
  return ok ? 0 : 1;
}
