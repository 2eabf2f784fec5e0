// bench/gpu_latencies: the latencies behind the simulator's estimated time (docs/profile.md, "An
// estimated time"), measured on a GPU with clock64() inside one kernel each:
//   l1_load        a dependent chain of plain loads that hit L1 (ld.ca, a 4 KiB ring, read once before)
//   store_l1_load  the l1_load chain with a plain store into each load's sector just before it:
//                  whether a store leaves the sector in the SM's L1 (38 cycles) or not (L2's)
//   l2_load        a dependent chain of loads that hit L2 (ld.cg, a 1 MiB ring: every load misses L1)
//   dram_load      a dependent chain of loads that miss L2 (ld.cg over a 1 GiB ring with a stride of
//                  4 KiB + 128 B, each launch 8 MiB further on: every load a sector no launch read)
//   shared_load    a dependent chain of shared-memory loads
//   atom_global    a dependent chain of atomicAdd on one global word, one thread (its value is used)
//   atom_shared    the same on a shared word
//   fence_gpu      a global store then __threadfence() (fence.sc.gpu), one thread, per pair
//   fence_acq_rel  a global store then fence.acq_rel.gpu, per pair
//   st_release     st.release.gpu of a global word after a plain store of another, per pair
//   atom_release   a dependent chain of atom.add.release.gpu on one global word
//   fence_cta      a shared store then __threadfence_block(), per pair
//   syncthreads    __syncthreads() in a block of 128 threads, per barrier
//   syncthreads_after_store  the same with a plain global store by every thread before each barrier
//                  (coalesced, to a sector the block holds in L1): what a barrier waits for its stores
//   handover_grid  two blocks pass a token through a global word (volatile polls, a store each way):
//                  half a round trip
//   handover_fenced the same with __threadfence() before each store (the lab 07 barriers' shape)
//   handover_block two warps of one block pass a token through a shared word: half a round trip
//   shared_conflict 32 lanes of a warp atomicOr one shared word, dependent rounds: per lane operation
// Each is the median of 9 launches; cycles per operation of the SM clock (clock64). Then two
// bandwidths, timed with CUDA events over one launch of 1,056 blocks of 256 threads (median of 9):
//   l2_store_bw    coalesced 4-byte stores over a 16 MiB buffer (it stays in L2), 16 passes
//   l2_store_bw_4mib the same over the buffer's first 4 MiB
//   l2_load_bw     the same with ld.cg loads (L2 hits), their sum written once per thread
// Prints one line per measurement and the device; writes nothing else.
//
//   nvcc -O3 -arch=sm_90 -o gpu_latencies bench/gpu_latencies/gpu_latencies.cu && ./gpu_latencies
//
// `gpu_latencies empty` instead launches an empty kernel <<<66, 128>>> 20 times (lab 07's shape),
// for Nsight Compute to time (tests/profile/run_ncu.sh): what a launch costs on its own.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                                       \
  do {                                                                                                 \
    cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "gpu_latencies: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

constexpr int kIters = 4096;

__device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned ld_ca(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Each kernel writes its cycles per operation to out[0] and a value the compiler cannot drop to out[1].
__global__ void l1_load(const unsigned* ring, long long* out) {
  unsigned i = 0;
  for (int k = 0; k < 2048; ++k) i = ld_ca(ring + i);  // bring the ring into L1
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) i = ld_ca(ring + i);
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = i;
}

__global__ void store_l1_load(unsigned* ring, long long* out) {
  unsigned i = 0;
  for (int k = 0; k < 2048; ++k) i = ld_ca(ring + i);  // bring the ring into L1
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    ring[i + 1] = unsigned(k);  // a word of the next load's sector that the chain does not use
    i = ld_ca(ring + i);
  }
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = i;
}

__global__ void dram_load(const unsigned* ring, unsigned start, long long* out) {
  unsigned i = start;
  const long long t0 = clock64();
  for (int k = 0; k < kIters / 4; ++k) i = ld_cg(ring + i);
  const long long t1 = clock64();
  out[0] = (t1 - t0) / (kIters / 4);
  out[1] = i;
}

// The 1 GiB ring: word k holds the index of the word `stride` words further on (modulo the ring).
__global__ void fill_far_ring(unsigned* ring, unsigned n, unsigned stride) {
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    ring[k] = unsigned((static_cast<unsigned long long>(k) + stride) % n);
}

__global__ void l2_load(const unsigned* ring, long long* out) {
  unsigned i = 0;
  for (int k = 0; k < 64; ++k) i = ld_cg(ring + i);  // warm L2
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) i = ld_cg(ring + i);
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = i;
}

__global__ void shared_load(long long* out) {
  __shared__ unsigned ring[1024];
  for (int k = 0; k < 1024; ++k) ring[k] = (k * 97 + 13) % 1024;
  volatile unsigned* r = ring;
  unsigned i = 0;
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) i = r[i];
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = i;
}

__global__ void atom_global(unsigned* word, long long* out) {
  unsigned v = 1;
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) v = atomicAdd(word, v & 1u) + 1u;
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = v;
}

__global__ void atom_shared(long long* out) {
  __shared__ unsigned word;
  word = 0;
  __syncthreads();
  unsigned v = 1;
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) v = atomicAdd(&word, v & 1u) + 1u;
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = v;
}

// A plain store of one global word, then an order: __threadfence() (fence.sc.gpu), fence.acq_rel.gpu,
// or st.release.gpu of another word; per pair.
enum class Order { fence_sc, fence_acq_rel, st_release };
template <Order kOrder>
__global__ void store_then(unsigned* word, long long* out) {
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    *(volatile unsigned*)(word + 8) = k;
    if (kOrder == Order::fence_sc) __threadfence();
    if (kOrder == Order::fence_acq_rel) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    if (kOrder == Order::st_release) asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(word), "r"(k) : "memory");
  }
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = word[8];
}

// K warps of one block (or one warp in each of K blocks: `stride` words apart) each store a word
// per lane and then __threadfence(), over and over: whether fences of warps on one SM wait for
// each other (the cycles per pair grow with K) or not (they stay at one warp's).
__global__ void store_fence_warps(unsigned* words, long long* out) {
  const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  unsigned* mine = words + warp * 32 + threadIdx.x % 32;
  __syncthreads();
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    *(volatile unsigned*)mine = k;
    __threadfence();
  }
  const long long t1 = clock64();
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = (t1 - t0) / kIters, out[1] = *mine;
}

__global__ void atom_release(unsigned* word, long long* out) {
  unsigned v = 1;
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    unsigned old;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(word), "r"(v & 1u) : "memory");
    v = old + 1u;
  }
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = v;
}

__global__ void fence_cta(long long* out) {
  __shared__ unsigned word;
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    *(volatile unsigned*)&word = k;
    __threadfence_block();
  }
  const long long t1 = clock64();
  out[0] = (t1 - t0) / kIters;
  out[1] = word;
}

__global__ void syncthreads_cost(long long* out) {
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = (t1 - t0) / kIters, out[1] = 0;
}

__global__ void syncthreads_after_store(unsigned* data, long long* out) {
  unsigned* mine = data + threadIdx.x;
  *mine = 0;
  __syncthreads();
  const long long t0 = clock64();
  for (int k = 0; k < kIters; ++k) {
    *mine = unsigned(k);
    __syncthreads();
  }
  const long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = (t1 - t0) / kIters, out[1] = 0;
}

// Blocks 0 and 1 (thread 0 of each) pass a token: block b waits for 2k + b, writes 2k + b + 1.
template <bool kFenced>
__global__ void handover_grid(unsigned* flag, long long* out) {
  if (threadIdx.x != 0) return;
  volatile unsigned* f = flag;
  const unsigned b = blockIdx.x;
  const long long t0 = clock64();
  for (unsigned k = 0; k < kIters; ++k) {
    while (f[0] != 2 * k + b) {
    }
    if (kFenced) __threadfence();
    f[0] = 2 * k + b + 1;
  }
  const long long t1 = clock64();
  if (b == 0) out[0] = (t1 - t0) / (2 * kIters), out[1] = f[0];
}

// Warps 0 and 1 of one block (lane 0 of each) pass a token through a shared word.
__global__ void handover_block(long long* out) {
  __shared__ unsigned flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x % 32 != 0) return;
  volatile unsigned* f = &flag;
  const unsigned b = threadIdx.x / 32;
  const long long t0 = clock64();
  for (unsigned k = 0; k < kIters; ++k) {
    while (f[0] != 2 * k + b) {
    }
    f[0] = 2 * k + b + 1;
  }
  const long long t1 = clock64();
  if (b == 0) out[0] = (t1 - t0) / (2 * kIters), out[1] = f[0];
}

__global__ void shared_conflict(long long* out) {
  __shared__ unsigned word;
  if (threadIdx.x == 0) word = 0;
  __syncwarp();
  unsigned v = 0;
  const long long t0 = clock64();
  for (int k = 0; k < kIters / 32; ++k) v += atomicOr(&word, (v & 1u) << threadIdx.x);
  __syncwarp();
  const long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = (t1 - t0) / (kIters / 32) / 32, out[1] = v;
}

template <class Launch>
long long median_of(Launch launch, long long* out) {
  std::vector<long long> v;
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaMemset(out, 0, 2 * sizeof(long long)));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long h[2];
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    v.push_back(h[0]);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

__global__ void empty_kernel() {}

constexpr unsigned kBwWords = 4u << 20;  // 16 MiB
constexpr int kBwPasses = 16;

template <unsigned kWords>
__global__ void l2_store_bw(unsigned* buf) {
  const unsigned stride = gridDim.x * blockDim.x;
  for (int p = 0; p < kBwPasses; ++p)
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < kWords; k += stride) buf[k] = k + unsigned(p);
}

__global__ void l2_load_bw(const unsigned* buf, unsigned* sink) {
  const unsigned stride = gridDim.x * blockDim.x;
  unsigned sum = 0;
  for (int p = 0; p < kBwPasses; ++p)
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < kBwWords; k += stride) sum += ld_cg(buf + k);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Bytes per second of `launch` moving kBwPasses x `words` words, the median of 9 timed launches after one.
template <class Launch>
double bandwidth_of(Launch launch, unsigned words = kBwWords) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> v;
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(double(kBwPasses) * words * 4 / (ms * 1e-3));
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "empty") {
    for (int k = 0; k < 20; ++k) empty_kernel<<<66, 128>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("20 launches of an empty kernel <<<66, 128>>>\n");
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "usage: gpu_latencies [empty]\n");
    return 2;
  }
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("device: %s, %d SMs, SM clock %d MHz (reported)\n", p.name, p.multiProcessorCount, clock_khz / 1000);
  const unsigned kRing = 1u << 18;  // 1 MiB of words: in L2, not in L1
  std::vector<unsigned> ring(kRing);
  for (unsigned k = 0; k < kRing; ++k) ring[k] = (k + 4099u * 8u) % kRing;  // stride of 4099 sectors
  unsigned *d_ring, *d_word;
  long long* d_out;
  CHECK(cudaMalloc(&d_ring, kRing * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_word, 64));
  CHECK(cudaMalloc(&d_out, 2 * sizeof(long long)));
  CHECK(cudaMemcpy(d_ring, ring.data(), kRing * sizeof(unsigned), cudaMemcpyHostToDevice));
  auto zero = [&] { CHECK(cudaMemset(d_word, 0, 64)); };
  const unsigned kSmallRing = 1024;  // 4 KiB of words: fits L1
  std::vector<unsigned> small(kSmallRing);
  for (unsigned k = 0; k < kSmallRing; ++k) small[k] = (k + 97u * 8u) % kSmallRing;  // a new sector each load
  unsigned* d_small;
  CHECK(cudaMalloc(&d_small, kSmallRing * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_small, small.data(), kSmallRing * sizeof(unsigned), cudaMemcpyHostToDevice));
  const unsigned kFarRing = 1u << 28;                  // 1 GiB of words
  const unsigned kFarStride = 1024u + 32u;             // 4 KiB + 128 B, in words
  unsigned* d_far;
  CHECK(cudaMalloc(&d_far, size_t(kFarRing) * sizeof(unsigned)));
  fill_far_ring<<<1024, 256>>>(d_far, kFarRing, kFarStride);
  CHECK(cudaDeviceSynchronize());
  struct Row {
    const char* name;
    long long cycles;
  };
  std::vector<Row> rows;
  rows.push_back({"l1_load", median_of([&] { l1_load<<<1, 1>>>(d_small, d_out); }, d_out)});
  rows.push_back({"store_l1_load", median_of([&] { store_l1_load<<<1, 1>>>(d_small, d_out); }, d_out)});
  rows.push_back({"l2_load", median_of([&] { l2_load<<<1, 1>>>(d_ring, d_out); }, d_out)});
  unsigned far_start = 0;
  rows.push_back({"dram_load", median_of([&] {
                    dram_load<<<1, 1>>>(d_far, far_start, d_out);
                    far_start += 1u << 21;  // 8 MiB on
                  },
                                         d_out)});
  rows.push_back({"shared_load", median_of([&] { shared_load<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"atom_global", median_of([&] { zero(), atom_global<<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"atom_shared", median_of([&] { atom_shared<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"fence_gpu", median_of([&] { store_then<Order::fence_sc><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back(
      {"fence_acq_rel", median_of([&] { store_then<Order::fence_acq_rel><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"st_release", median_of([&] { store_then<Order::st_release><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"atom_release", median_of([&] { zero(), atom_release<<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"fence_cta", median_of([&] { fence_cta<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"fence_warps_1", median_of([&] { store_fence_warps<<<1, 32>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_warps_2", median_of([&] { store_fence_warps<<<1, 64>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_warps_3", median_of([&] { store_fence_warps<<<1, 96>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_warps_4", median_of([&] { store_fence_warps<<<1, 128>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_warps_8", median_of([&] { store_fence_warps<<<1, 256>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_warps_32", median_of([&] { store_fence_warps<<<1, 1024>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_blocks_4", median_of([&] { store_fence_warps<<<4, 32>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"fence_blocks_66", median_of([&] { store_fence_warps<<<66, 32>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"syncthreads", median_of([&] { syncthreads_cost<<<1, 128>>>(d_out); }, d_out)});
  rows.push_back({"syncthreads_after_store",
                  median_of([&] { syncthreads_after_store<<<1, 128>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"handover_grid", median_of([&] { zero(), handover_grid<false><<<2, 32>>>(d_word, d_out); }, d_out)});
  rows.push_back({"handover_fenced", median_of([&] { zero(), handover_grid<true><<<2, 32>>>(d_word, d_out); }, d_out)});
  rows.push_back({"handover_block", median_of([&] { handover_block<<<1, 64>>>(d_out); }, d_out)});
  rows.push_back({"shared_conflict", median_of([&] { shared_conflict<<<1, 32>>>(d_out); }, d_out)});
  for (const Row& r : rows) std::printf("%-24s %6lld cycles\n", r.name, r.cycles);
  unsigned *d_bw, *d_sink;
  CHECK(cudaMalloc(&d_bw, size_t(kBwWords) * 4));
  CHECK(cudaMalloc(&d_sink, size_t(1056) * 256 * 4));
  const double store_bw = bandwidth_of([&] { l2_store_bw<kBwWords><<<1056, 256>>>(d_bw); });
  const double store_bw_4 = bandwidth_of([&] { l2_store_bw<kBwWords / 4><<<1056, 256>>>(d_bw); }, kBwWords / 4);
  const double load_bw = bandwidth_of([&] { l2_load_bw<<<1056, 256>>>(d_bw, d_sink); });
  std::printf("%-24s %6.0f GB/s\n", "l2_store_bw", store_bw / 1e9);
  std::printf("%-24s %6.0f GB/s\n", "l2_store_bw_4mib", store_bw_4 / 1e9);
  std::printf("%-24s %6.0f GB/s\n", "l2_load_bw", load_bw / 1e9);
  return 0;
}
