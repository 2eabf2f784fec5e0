// Lab 05's GPU measurement (LABS.md, "05 prefix-sums"): an inclusive scan of 2^28 int32 values in
// one pass with decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with
// Decoupled Look-back", NVIDIA technical report NVR-2016-002), the reference for task 4, tuned for
// speed, against cub::DeviceScan::InclusiveSum and a device-to-device copy of the same bytes, all
// in the same run.
//
//   lab05_scan [--log2n K] [--reps N] [--warmup W] [--seed S]
//
// Default: 2^28 int32 (1 GiB in, 1 GiB out), 100 timed rounds after 5 warm-up rounds.
//   1. Checks every version (CUB's too) on fresh random inputs of awkward sizes (1, 3, 4095, 4097,
//      ...) against a host scan (int32 with wrap-around: the host adds as uint32).
//   2. Fills the 1 GiB input with random values and checks every version on it. Each output is
//      poisoned first, so an element left unwritten is caught.
//   3. Times every version with CUDA events; each round runs every version once, in a new random
//      order, queued back to back and waited for once.
//   4. Checks every version's output of the last timed round again and prints the table: best and
//      median time, GB/s as (bytes read + bytes written) / time (the copy too), the median's ratio
//      to CUB's and to the copy's GB/s.
//
// The reference (scan_single_pass<128, 64, streaming, window 8> below): a block of 128 threads
// takes its tile of 8192 values from an atomic counter, loads 64 values per thread 16 bytes at a
// time with streaming (evict-first) loads and stores (each warp a contiguous stretch), scans them
// in registers and with warp shuffles, publishes the tile's aggregate at once, then warp 0 looks
// back over a window of 8 predecessors at a time (one lane each). The other rows vary one of
// these (tile shape, streaming, window; a persistent grid) to show what each is worth, and time
// the zeroing of the descriptors, which every single-pass row includes. Status and value share one 64-bit word, so one
// store publishes both and no fence is needed between them (the lab's task 4 uses separate words
// and fences, to show the ordering; this is CUB's choice for 4-byte values).
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "synclab/cuda_check.h"

namespace {

// ---- the reference single-pass scan -------------------------------------------------------------

constexpr unsigned long long kInvalid = 0, kAggregate = 1, kPrefix = 2;

__device__ __forceinline__ unsigned long long pack(unsigned long long status, unsigned value) {
  return status << 32 | value;
}

__device__ __forceinline__ unsigned long long load_descriptor(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_descriptor(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned warp_sum(unsigned v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  return v;  // (lane 0 has the sum)
}

template <bool kStreaming>
__device__ __forceinline__ uint4 load4(const uint4* p) {
  if constexpr (kStreaming) return __ldcs(p);
  return *p;
}

template <bool kStreaming>
__device__ __forceinline__ void store4(uint4* p, uint4 v) {
  if constexpr (kStreaming)
    __stcs(p, v);
  else
    *p = v;
}

// One tile: load, scan in registers and across the warps, publish the aggregate, look back, publish
// the inclusive prefix, store. tiles[t] is tile t's status and value (0 before the launch).
// kMode (time-only diagnostics, the rows named "diag:"): kFull scans; kNoLookBack scans the tile
// alone (no descriptors, no look-back: wrong sums); kCopyOnly loads and stores the tile unchanged.
// kSleep > 0: the look-back sleeps kSleep ns after a poll that found a predecessor not ready,
// doubling up to 1 us. kEarly scans too, but publishes the tile's aggregate before scanning it: a reduction of the loaded
// values gives the aggregate, warp 0 publishes it and looks back while the other warps scan their
// values (warp 0 scans its own after the look-back), so a successor waits for a load and a sum
// instead of a load and a scan.
constexpr int kFull = 0, kNoLookBack = 1, kCopyOnly = 2, kEarly = 3;
template <int kBlock, int kItems, bool kStreaming, int kWindow, int kMode = kFull, int kSleep = 0>
__device__ __forceinline__ void scan_tile(const unsigned* __restrict__ in, unsigned* __restrict__ out, size_t n,
                                          unsigned long long* __restrict__ tiles, size_t tile,
                                          unsigned* warp_totals, unsigned* exclusive_s) {
  static_assert(kItems % 4 == 0 && kBlock % 32 == 0, "ITEMS a multiple of 4, whole warps");
  constexpr int kWarps = kBlock / 32, kChunks = kItems / 4;
  constexpr size_t kTile = size_t(kBlock) * kItems, kWarpSpan = 32 * size_t(kItems);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const size_t warp_base = tile * kTile + warp * kWarpSpan;
  const bool full = (tile + 1) * kTile <= n;
  // Load: chunk k of a warp is 128 consecutive values, lane l holding 4 of them.
  uint4 v[kChunks];
  if (full) {
#pragma unroll
    for (int k = 0; k < kChunks; ++k)
      v[k] = load4<kStreaming>(reinterpret_cast<const uint4*>(in + warp_base + k * 128 + lane * 4));
  } else {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      const size_t i = warp_base + k * 128 + lane * 4;
      v[k].x = i < n ? in[i] : 0;
      v[k].y = i + 1 < n ? in[i + 1] : 0;
      v[k].z = i + 2 < n ? in[i + 2] : 0;
      v[k].w = i + 3 < n ? in[i + 3] : 0;
    }
  }
  if constexpr (kMode == kCopyOnly) {
    if (full) {
#pragma unroll
      for (int k = 0; k < kChunks; ++k)
        store4<kStreaming>(reinterpret_cast<uint4*>(out + warp_base + k * 128 + lane * 4), v[k]);
    }
    return;
  }
  // Scan in registers and across the warp, chunk by chunk, with a running carry (its total).
  auto scan_warp = [&]() {
    unsigned carry = 0;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      v[k].y += v[k].x;
      v[k].z += v[k].y;
      v[k].w += v[k].z;
      unsigned s = v[k].w;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const unsigned up = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= unsigned(d)) s += up;
      }
      const unsigned before = carry + s - v[k].w;
      v[k].x += before, v[k].y += before, v[k].z += before, v[k].w += before;
      carry += __shfl_sync(0xffffffffu, s, 31);
    }
    return carry;
  };
  if constexpr (kMode == kEarly) {
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < kChunks; ++k) sum += v[k].x + v[k].y + v[k].z + v[k].w;
    sum = __reduce_add_sync(0xffffffffu, sum);
    if (lane == 0) warp_totals[warp] = sum;
  } else {
    const unsigned carry = scan_warp();
    if (lane == 0) warp_totals[warp] = carry;
  }
  __syncthreads();
  unsigned warp_offset = 0, aggregate = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const unsigned t = warp_totals[w];
    warp_offset += unsigned(w) < warp ? t : 0;
    aggregate += t;
  }
  if (kMode == kNoLookBack) {
    if (threadIdx.x == 0) *exclusive_s = 0;
  } else if (warp == 0) {
    unsigned exclusive = 0;
    if (tile == 0) {
      if (lane == 0) store_descriptor(&tiles[0], pack(kPrefix, aggregate));
    } else {
      if (lane == 0) store_descriptor(&tiles[tile], pack(kAggregate, aggregate));
      // Look back over kWindow predecessors at a time: lane l < kWindow reads tile - 1 - l (the others
      // count as an aggregate of 0).
      long long window = (long long)tile - 1;
      while (true) {
        const long long j = window - lane;
        unsigned long long d;
        unsigned pause = kSleep;
        while (true) {
          d = lane >= unsigned(kWindow) ? pack(kAggregate, 0) : j >= 0 ? load_descriptor(&tiles[j]) : pack(kPrefix, 0);
          if (!__any_sync(0xffffffffu, (d >> 32) == kInvalid)) break;
          if constexpr (kSleep > 0) {
            // Back off between polls (doubling up to 1 us), so that the polls leave the memory
            // system to the predecessors' loads.
            __nanosleep(pause);
            pause = pause * 2 < 1000 ? pause * 2 : 1000;
          }
        }
        const unsigned prefixes = __ballot_sync(0xffffffffu, (d >> 32) == kPrefix);
        unsigned value = unsigned(d);
        if (prefixes) {
          const unsigned first = __ffs(prefixes) - 1;  // the nearest tile with its prefix
          if (lane > first) value = 0;
          exclusive += __shfl_sync(0xffffffffu, warp_sum(value), 0);
          break;
        }
        exclusive += __shfl_sync(0xffffffffu, warp_sum(value), 0);
        window -= kWindow;
      }
      if (lane == 0) store_descriptor(&tiles[tile], pack(kPrefix, exclusive + aggregate));
    }
    if (lane == 0) *exclusive_s = exclusive;
  }
  if constexpr (kMode == kEarly) scan_warp();  // warp 0 after its look-back, the others meanwhile
  __syncthreads();
  const unsigned offset = *exclusive_s + warp_offset;
  if (full) {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      uint4 r = v[k];
      r.x += offset, r.y += offset, r.z += offset, r.w += offset;
      store4<kStreaming>(reinterpret_cast<uint4*>(out + warp_base + k * 128 + lane * 4), r);
    }
  } else {
#pragma unroll
    for (int k = 0; k < kChunks; ++k) {
      const size_t i = warp_base + k * 128 + lane * 4;
      if (i < n) out[i] = v[k].x + offset;
      if (i + 1 < n) out[i + 1] = v[k].y + offset;
      if (i + 2 < n) out[i + 2] = v[k].z + offset;
      if (i + 3 < n) out[i + 3] = v[k].w + offset;
    }
  }
}


// desc[0] is the tile counter (its low 32 bits); desc[1 + t] is tile t's descriptor. All 0 before
// the launch. One block per tile, each taking its tile from the counter.
// kTicket false (a time-only diagnostic): the tile is blockIdx.x, no counter. kMinBlocks: the
// blocks per SM the compiler must leave registers for (1: its own choice).
template <int kBlock, int kItems, bool kStreaming, int kWindow = 32, int kMode = kFull, bool kTicket = true,
          int kMinBlocks = 1, int kSleep = 0>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
    scan_single_pass(const unsigned* __restrict__ in, unsigned* __restrict__ out, size_t n,
                     unsigned long long* __restrict__ desc) {
  __shared__ unsigned tile_s, exclusive_s;
  __shared__ unsigned warp_totals[kBlock / 32];
  if (threadIdx.x == 0) tile_s = kTicket ? atomicAdd(reinterpret_cast<unsigned*>(desc), 1u) : blockIdx.x;
  __syncthreads();
  scan_tile<kBlock, kItems, kStreaming, kWindow, kMode, kSleep>(in, out, n, desc + 1, tile_s, warp_totals,
                                                                &exclusive_s);
}

// The same with a persistent grid (every block resident): each block loops over tiles, and takes
// its next ticket while it scans the current tile, so the atomic's latency is not on the path.
// Blocks wait only for lower tiles, held by running blocks, so the loop cannot deadlock.
template <int kBlock, int kItems, bool kStreaming>
__global__ void __launch_bounds__(kBlock)
    scan_persistent(const unsigned* __restrict__ in, unsigned* __restrict__ out, size_t n,
                    unsigned long long* __restrict__ desc, unsigned tiles) {
  __shared__ unsigned ticket_s[2], exclusive_s;
  __shared__ unsigned warp_totals[kBlock / 32];
  unsigned* counter = reinterpret_cast<unsigned*>(desc);
  if (threadIdx.x == 0) ticket_s[0] = atomicAdd(counter, 1u);
  __syncthreads();
  for (int k = 0;; k ^= 1) {
    const unsigned tile = ticket_s[k];
    if (tile >= tiles) break;
    if (threadIdx.x == 0) ticket_s[k ^ 1] = atomicAdd(counter, 1u);  // read after scan_tile's barriers
    scan_tile<kBlock, kItems, kStreaming, 32>(in, out, n, desc + 1, tile, warp_totals, &exclusive_s);
    __syncthreads();  // every thread has read ticket_s[k] and exclusive_s before they are reused
  }
}

// ---- versions ---------------------------------------------------------------------------------------

using Run = std::function<void(const unsigned* in, size_t n, unsigned* out)>;

struct Version {
  std::string name;
  Run run;
  bool is_copy = false;
  bool time_only = false;  // not a scan: timed to show an overhead, not checked
};

// Scratch for the single-pass scans: the counter and one descriptor per tile, zeroed before each
// launch (one memset, queued with the launch; its time is counted).
struct Descriptors {
  unsigned long long* p = nullptr;
  size_t capacity = 0;
};

template <int kBlock, int kItems, bool kStreaming, int kWindow = 32, int kMode = kFull, bool kTicket = true,
          int kMinBlocks = 1, int kSleep = 0>
Version single_pass(Descriptors* d, const std::string& name) {
  return Version{name, [d](const unsigned* in, size_t n, unsigned* out) {
                   constexpr size_t kTile = size_t(kBlock) * kItems;
                   const size_t tiles = (n + kTile - 1) / kTile;
                   if (tiles + 1 > d->capacity) {
                     std::fprintf(stderr, "descriptor capacity too small\n");
                     std::exit(1);
                   }
                   CHECK(cudaMemsetAsync(d->p, 0, (tiles + 1) * sizeof(unsigned long long)));
                   scan_single_pass<kBlock, kItems, kStreaming, kWindow, kMode, kTicket, kMinBlocks, kSleep>
                       <<<unsigned(tiles), kBlock>>>(in, out, n, d->p);
                   CHECK(cudaGetLastError());
                 },
                 false, kMode == kNoLookBack || kMode == kCopyOnly};
}

template <int kBlock, int kItems, bool kStreaming>
Version persistent(Descriptors* d, const std::string& name) {
  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_persistent<kBlock, kItems, kStreaming>, kBlock, 0));
  const int grid = sms * per_sm;
  return Version{name + " (" + std::to_string(grid) + " blocks)", [d, grid](const unsigned* in, size_t n, unsigned* out) {
                   constexpr size_t kTile = size_t(kBlock) * kItems;
                   const size_t tiles = (n + kTile - 1) / kTile;
                   if (tiles + 1 > d->capacity) {
                     std::fprintf(stderr, "descriptor capacity too small\n");
                     std::exit(1);
                   }
                   CHECK(cudaMemsetAsync(d->p, 0, (tiles + 1) * sizeof(unsigned long long)));
                   const unsigned blocks = unsigned(std::min<size_t>(tiles, size_t(grid)));
                   scan_persistent<kBlock, kItems, kStreaming><<<blocks, kBlock>>>(in, out, n, d->p, unsigned(tiles));
                   CHECK(cudaGetLastError());
                 }};
}

struct CubScan {
  void* temp = nullptr;
  size_t bytes = 0;
  void run(const unsigned* in, size_t n, unsigned* out) {
    size_t need = 0;
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, need, in, out, int(n)));
    if (need > bytes) {
      CHECK(cudaFree(temp));
      CHECK(cudaMalloc(&temp, need));
      bytes = need;
    }
    CHECK(cub::DeviceScan::InclusiveSum(temp, need, in, out, int(n)));
  }
};

// ---- helpers ------------------------------------------------------------------------------------

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
  }
};

__global__ void fill_random(unsigned* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
    x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29;
    p[i] = unsigned(x);
  }
}

void poison(unsigned* d, size_t n) { CHECK(cudaMemset(d, 0xa5, n * sizeof(unsigned))); }

// The index of the first element of out (device) that differs from the host scan of in (device),
// or n when none does.
size_t first_wrong(const unsigned* d_in, const unsigned* d_out, size_t n, std::vector<unsigned>& h_in,
                   std::vector<unsigned>& h_out) {
  h_in.resize(n), h_out.resize(n);
  CHECK(cudaMemcpy(h_in.data(), d_in, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += h_in[i];
    if (h_out[i] != sum) return i;
  }
  return n;
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, reps = 100, warmup = 5;
  uint64_t seed = uint64_t(std::time(nullptr));
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> long long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::atoll(argv[++i]);
    };
    if (a == "--log2n") log2n = int(value());
    else if (a == "--reps") reps = int(value());
    else if (a == "--warmup") warmup = int(value());
    else if (a == "--seed") seed = uint64_t(value());
    else {
      std::fprintf(stderr, "usage: lab05_scan [--log2n K] [--reps N] [--warmup W] [--seed S]\n");
      return 2;
    }
  }
  if (log2n < 12 || log2n > 30) {
    std::fprintf(stderr, "--log2n takes 12..30\n");
    return 2;
  }
  const size_t n = size_t(1) << log2n;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab05_scan: inclusive scan of 2^%d int32 (%.2f GiB in, as much out) on %s, %s; seed %llu\n", log2n,
              n * 4.0 / (1 << 30), prop.name, date, (unsigned long long)seed);

  Descriptors desc;
  desc.capacity = n / 256 + 2;  // the smallest tile below is 256 x 4... x 8 values: plenty
  CHECK(cudaMalloc(&desc.p, desc.capacity * sizeof(unsigned long long)));
  CubScan cub_scan;
  std::vector<Version> versions;
  versions.push_back({"cub::DeviceScan::InclusiveSum", [&](const unsigned* in, size_t m, unsigned* out) {
                        cub_scan.run(in, m, out);
                      }});
  versions.push_back({"cudaMemcpy D2D (read + write)", nullptr, true});
  versions.push_back(single_pass<128, 64, true, 8>(&desc, "single pass, 128 x 64, streaming, window 8 (reference)"));
  versions.push_back(single_pass<256, 16, false>(&desc, "single pass, 256 x 16, window 32"));
  versions.push_back(single_pass<256, 16, true>(&desc, "single pass, 256 x 16, streaming, window 32"));
  versions.push_back(single_pass<128, 32, true>(&desc, "single pass, 128 x 32, streaming, window 32"));
  versions.push_back(single_pass<128, 64, false>(&desc, "single pass, 128 x 64, window 32"));
  versions.push_back(single_pass<128, 64, true>(&desc, "single pass, 128 x 64, streaming, window 32"));
  versions.push_back(single_pass<128, 64, true, 16>(&desc, "single pass, 128 x 64, streaming, window 16"));
  versions.push_back(single_pass<128, 64, true, 4>(&desc, "single pass, 128 x 64, streaming, window 4"));
  versions.push_back(single_pass<128, 64, true, 1>(&desc, "single pass, 128 x 64, streaming, window 1"));
  versions.push_back(single_pass<256, 48, true, 8>(&desc, "single pass, 256 x 48, streaming, window 8"));
  versions.push_back(single_pass<128, 32, true, 8>(&desc, "single pass, 128 x 32, streaming, window 8"));
  versions.push_back(single_pass<256, 32, true, 8>(&desc, "single pass, 256 x 32, streaming, window 8"));
  versions.push_back(single_pass<256, 64, true, 8>(&desc, "single pass, 256 x 64, streaming, window 8"));
  versions.push_back(single_pass<128, 96, true, 8>(&desc, "single pass, 128 x 96, streaming, window 8"));
  versions.push_back(single_pass<128, 64, true, 8, kFull, true, 5>(&desc, "single pass, 128 x 64, streaming, window 8, 5 blocks/SM"));
  versions.push_back(single_pass<128, 64, true, 8, kFull, true, 6>(&desc, "single pass, 128 x 64, streaming, window 8, 6 blocks/SM"));
  versions.push_back(persistent<128, 64, true>(&desc, "persistent, 128 x 64, streaming, window 32"));
  versions.push_back(single_pass<128, 64, true, 8, kEarly>(&desc, "early aggregate, 128 x 64, streaming, window 8"));
  versions.push_back(single_pass<128, 64, true, 8, kEarly, true, 6>(&desc, "early aggregate, 128 x 64, window 8, 6 blocks/SM"));
  versions.push_back(single_pass<128, 96, true, 8, kEarly>(&desc, "early aggregate, 128 x 96, streaming, window 8"));
  versions.push_back(single_pass<256, 64, true, 8, kEarly>(&desc, "early aggregate, 256 x 64, streaming, window 8"));
  versions.push_back(single_pass<128, 64, true, 8, kFull, true, 1, 50>(&desc, "back-off 50 ns, 128 x 64, streaming, window 8"));
  versions.push_back(single_pass<128, 64, true, 8, kFull, true, 1, 200>(&desc, "back-off 200 ns, 128 x 64, streaming, window 8"));
  versions.push_back(single_pass<128, 64, true, 8, kFull, true, 6, 100>(&desc, "back-off 100 ns, 128 x 64, window 8, 6 blocks/SM"));
  versions.push_back(single_pass<128, 96, true, 8, kFull, true, 1, 100>(&desc, "back-off 100 ns, 128 x 96, streaming, window 8"));
  // Time-only diagnostics: where the reference's time goes (its tile and its loads, one part taken
  // out at a time; bench/results/lab05_scan.md).
  versions.push_back(single_pass<128, 64, true, 8, kFull, false>(&desc, "diag: reference, tile = blockIdx (no counter)"));
  versions.push_back(single_pass<128, 64, true, 8, kNoLookBack>(&desc, "diag: reference without look-back (wrong sums)"));
  versions.push_back(single_pass<128, 64, true, 8, kCopyOnly>(&desc, "diag: the reference's loads and stores only"));
  versions.push_back({"descriptor memset alone (128 x 64 tiles)", [&desc](const unsigned*, size_t m, unsigned*) {
                        const size_t tiles = (m + 128 * 64 - 1) / (128 * 64);
                        CHECK(cudaMemsetAsync(desc.p, 0, (tiles + 1) * sizeof(unsigned long long)));
                      },
                      false, true});
  const size_t V = versions.size();

  // 1. Awkward sizes, fresh inputs.
  std::vector<unsigned> h_in, h_out;
  {
    unsigned *d_in = nullptr, *d_out = nullptr;
    const size_t sizes[] = {1, 3, 4, 5, 127, 128, 4095, 4096, 4097, 12289, 65536 + 7, 1000003, (size_t(1) << 22) + 129};
    CHECK(cudaMalloc(&d_in, sizes[12] * 4));
    CHECK(cudaMalloc(&d_out, sizes[12] * 4));
    int bad = 0;
    for (size_t m : sizes)
      for (size_t v = 0; v < V; ++v) {
        if (versions[v].is_copy || versions[v].time_only) continue;
        fill_random<<<256, 256>>>(d_in, m, seed + m);
        CHECK_KERNEL();
        poison(d_out, m);
        versions[v].run(d_in, m, d_out);
        CHECK_KERNEL();
        const size_t w = first_wrong(d_in, d_out, m, h_in, h_out);
        if (w != m) {
          std::printf("WRONG: %s at n = %zu: out[%zu] = %u\n", versions[v].name.c_str(), m, w, h_out[w]);
          ++bad;
        }
      }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    std::printf("awkward sizes: %zu sizes x %zu versions checked, %d wrong\n", std::size(sizes), V - 2, bad);
    if (bad) return 1;
  }

  // 2. The full size.
  unsigned* d_in = nullptr;
  CHECK(cudaMalloc(&d_in, n * 4));
  fill_random<<<1024, 256>>>(d_in, n, seed);
  CHECK_KERNEL();
  std::vector<unsigned*> d_out(V);
  for (size_t v = 0; v < V; ++v) {
    CHECK(cudaMalloc(&d_out[v], n * 4));
    poison(d_out[v], n);
    if (versions[v].is_copy || versions[v].time_only) continue;
    versions[v].run(d_in, n, d_out[v]);
    CHECK_KERNEL();
    const size_t w = first_wrong(d_in, d_out[v], n, h_in, h_out);
    if (w != n) {
      std::printf("WRONG: %s at n = 2^%d: out[%zu] = %u\n", versions[v].name.c_str(), log2n, w, h_out[w]);
      return 1;
    }
  }

  // 3. Timing.
  std::vector<std::vector<float>> ms(V);
  std::vector<cudaEvent_t> start(V), stop(V);
  for (size_t v = 0; v < V; ++v) {
    CHECK(cudaEventCreate(&start[v]));
    CHECK(cudaEventCreate(&stop[v]));
    poison(d_out[v], n);
  }
  std::vector<size_t> order(V);
  for (size_t v = 0; v < V; ++v) order[v] = v;
  Rng rng{seed | 1};
  for (int round = 0; round < warmup + reps; ++round) {
    for (size_t k = V; k > 1; --k) std::swap(order[k - 1], order[rng.next() % k]);
    for (size_t v : order) {
      CHECK(cudaEventRecord(start[v]));
      if (versions[v].is_copy)
        CHECK(cudaMemcpyAsync(d_out[v], d_in, n * 4, cudaMemcpyDeviceToDevice));
      else
        versions[v].run(d_in, n, d_out[v]);
      CHECK(cudaEventRecord(stop[v]));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    if (round < warmup) continue;
    for (size_t v = 0; v < V; ++v) {
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start[v], stop[v]));
      ms[v].push_back(t);
    }
  }

  // 4. Check again, then the table.
  std::vector<std::string> check(V, "ok");
  for (size_t v = 0; v < V; ++v) {
    if (versions[v].time_only) {
      check[v] = "(timed only)";
      continue;
    }
    if (versions[v].is_copy) {
      CHECK(cudaMemcpy(h_out.data(), d_out[v], n * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(h_in.data(), d_in, n * 4, cudaMemcpyDeviceToHost));
      if (h_out != h_in) check[v] = "WRONG";
      continue;
    }
    if (first_wrong(d_in, d_out[v], n, h_in, h_out) != n) check[v] = "WRONG";
  }
  const double bytes = 2.0 * n * 4;  // read + write
  const double cub_med = median(ms[0]), copy_med = median(ms[1]);
  std::printf("\nbest and median of %d rounds after %d warm-up; GB/s = (read + write bytes) / time, %.2f GB moved\n",
              reps, warmup, bytes / 1e9);
  std::printf("%-42s %9s %9s %9s %9s %8s %8s  %s\n", "version", "best ms", "median ms", "GB/s best", "GB/s med",
              "x CUB", "x copy", "check");
  for (size_t v = 0; v < V; ++v) {
    const double best = *std::min_element(ms[v].begin(), ms[v].end()), med = median(ms[v]);
    std::printf("%-42s %9.4f %9.4f %9.0f %9.0f %8.3f %8.3f  %s\n", versions[v].name.c_str(), best, med,
                bytes / (best * 1e6), bytes / (med * 1e6), cub_med / med, copy_med / med, check[v].c_str());
  }
  size_t ref = 2;
  for (size_t v = 0; v < V; ++v)
    if (versions[v].name.find("(reference)") != std::string::npos) ref = v;
  const double ref_med = median(ms[ref]);
  std::printf("\n%s: %.3fx CUB's bandwidth and %.3fx the copy's (median times)\n", versions[ref].name.c_str(),
              cub_med / ref_med, copy_med / ref_med);
  bool all_ok = true;
  for (const std::string& c : check) all_ok = all_ok && (c == "ok" || c == "(timed only)");
  return all_ok ? 0 : 1;
}
