// bench/gpu_latencies: the latencies behind the simulator's estimated time (docs/profile.md, "An
// estimated time"), measured on a GPU with clock64() inside one kernel each:
//   l2_load        a dependent chain of loads that hit L2 (ld.cg, a 1 MiB ring: every load misses L1)
//   shared_load    a dependent chain of shared-memory loads
//   atom_global    a dependent chain of atomicAdd on one global word, one thread (its value is used)
//   atom_shared    the same on a shared word
//   fence_gpu      a global store then __threadfence() (fence.sc.gpu), one thread, per pair
//   fence_acq_rel  a global store then fence.acq_rel.gpu, per pair
//   st_release     st.release.gpu of a global word after a plain store of another, per pair
//   atom_release   a dependent chain of atom.add.release.gpu on one global word
//   fence_cta      a shared store then __threadfence_block(), per pair
//   syncthreads    __syncthreads() in a block of 128 threads, per barrier
//   handover_grid  two blocks pass a token through a global word (volatile polls, a store each way):
//                  half a round trip
//   handover_fenced the same with __threadfence() before each store (the lab 07 barriers' shape)
//   handover_block two warps of one block pass a token through a shared word: half a round trip
//   shared_conflict 32 lanes of a warp atomicOr one shared word, dependent rounds: per lane operation
// Each is the median of 9 launches; cycles per operation of the SM clock (clock64). Prints one line
// per measurement and the device; writes nothing else.
//
//   nvcc -O3 -arch=sm_90 -o gpu_latencies bench/gpu_latencies/gpu_latencies.cu && ./gpu_latencies
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// Each kernel writes its cycles per operation to out[0] and a value the compiler cannot drop to out[1].
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

int main() {
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
  struct Row {
    const char* name;
    long long cycles;
  };
  std::vector<Row> rows;
  rows.push_back({"l2_load", median_of([&] { l2_load<<<1, 1>>>(d_ring, d_out); }, d_out)});
  rows.push_back({"shared_load", median_of([&] { shared_load<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"atom_global", median_of([&] { zero(), atom_global<<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"atom_shared", median_of([&] { atom_shared<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"fence_gpu", median_of([&] { store_then<Order::fence_sc><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back(
      {"fence_acq_rel", median_of([&] { store_then<Order::fence_acq_rel><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"st_release", median_of([&] { store_then<Order::st_release><<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"atom_release", median_of([&] { zero(), atom_release<<<1, 1>>>(d_word, d_out); }, d_out)});
  rows.push_back({"fence_cta", median_of([&] { fence_cta<<<1, 1>>>(d_out); }, d_out)});
  rows.push_back({"syncthreads", median_of([&] { syncthreads_cost<<<1, 128>>>(d_out); }, d_out)});
  rows.push_back({"handover_grid", median_of([&] { zero(), handover_grid<false><<<2, 32>>>(d_word, d_out); }, d_out)});
  rows.push_back({"handover_fenced", median_of([&] { zero(), handover_grid<true><<<2, 32>>>(d_word, d_out); }, d_out)});
  rows.push_back({"handover_block", median_of([&] { handover_block<<<1, 64>>>(d_out); }, d_out)});
  rows.push_back({"shared_conflict", median_of([&] { shared_conflict<<<1, 32>>>(d_out); }, d_out)});
  for (const Row& r : rows) std::printf("%-16s %6lld cycles\n", r.name, r.cycles);
  return 0;
}
