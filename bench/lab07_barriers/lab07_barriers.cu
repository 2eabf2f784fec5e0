// Lab 07's GPU measurement (LABS.md): the paper's Figure 8 on today's GPU (seed 001, section V.C),
// from the reference solutions' barriers (solutions/07-global-barriers/gpu_barriers.cu):
//   explicit   one launch per round, cudaDeviceSynchronize() between (task 1)
//   implicit   one launch per round, back to back in one stream (task 2)
//   simple     the lock-based barrier: one counter, goal N x round (task 3)
//   tree       two levels of counters, groups of kTreeGroup blocks (task 4)
//   lockfree   Arrayin/Arrayout, block 0 as the master (task 5)
//   sense      a counter reset by the last block and a flag whose sense flips (task 6)
//   simple-ra  task 3's barrier with its two fences folded into the atomic and the spin: one
//              atom.add.release.gpu to arrive and ld.acquire.gpu to poll (what cooperative
//              groups' grid barrier does on sm_70 and later); a tuned version, not a task
//   atom-ra    simple-ra with a returning atom.acq_rel.gpu.add: the last block to arrive reads
//              the goal in the atomic's answer and does not poll (the bench's fastest)
//   flip       cooperative groups' scheme from the CUDA 13 headers: a counter whose top bit flips
//              once per round, each block polling until it differs from what its atomic returned
//   relaxed-poll  simple-ra, but the spin polls with relaxed loads and one acquire fence follows
//              it (an acquire load may cost more than a relaxed one on every poll)
//   poll-sleep relaxed-poll with __nanosleep(32) between polls, leaving the counter's line to the
//              arrivals when many blocks poll it
//   grid.sync  cooperative_groups::this_grid().sync() in a cooperative launch (the reference)
// The round is the paper's micro-benchmark made to cross blocks: every thread writes its value to
// its slot, waits at the barrier, and takes the mean of its value and thread t of the next block's.
// For 1, 2, 4, ... blocks up to the SM count and the co-resident maximum (occupancy API x SMs),
// it prints the time per round: the median of --reps runs of --rounds rounds (CUDA events), each
// method first checked against a host reference. Then the paper's split of two applications'
// time (section VII.C) into computation (the same kernel without its barriers: wrong results,
// timed only) and synchronization, for bitonic sort and the Smith-Waterman fill.
//
//   lab07_barriers [--threads T] [--rounds R] [--reps N] [--smoke]
//
// --smoke: a tiny run for the simulator (correctness only; its times mean nothing).
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

// The reference solutions' barriers and applications, compiled into this program (device
// functions are called across files only with relocatable device code; one file is simpler).
// Named by their path from here, so that the skeletons of labs/ (same names) are never taken.
#include "../../solutions/07-global-barriers/apps.cu"
#include "../../solutions/07-global-barriers/gpu_barriers.cu"

namespace cg = cooperative_groups;
using lab07::BarrierState;

namespace {

enum M {
  kExplicit, kImplicit, kSimple, kTree, kLockfree, kSense, kSimpleRA, kAtomRA, kFlip, kRelaxedPoll, kPollSleep,
  kGridSync, kMethods
};
const char* kNames[kMethods] = {"explicit",  "implicit", "simple", "tree",         "lockfree",   "sense",
                                "simple-ra", "atom-ra",  "flip",   "relaxed-poll", "poll-sleep", "grid.sync"};

// Task 3's barrier, the fences folded into a release atomic and acquire loads (PTX ISA, "Memory
// Consistency Model": a release operation is cumulative over what the thread has observed, which
// the first __syncthreads() makes the block's writes).
__device__ __forceinline__ void sync_simple_release_acquire(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(count), "r"(1u) : "memory");
    const unsigned goal = gridDim.x * round;
    unsigned now;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(count) : "memory");
    } while (now < goal);
  }
  __syncthreads();
}

// simple-ra with a returning atom.add instead of red.add (the arrival waits for its answer). The
// last block to arrive reads the goal from the atomic and polls no more, so the atomic must also
// acquire (acq_rel): with .release only, that block would read the others' slots unordered (the
// simulator's relaxed mode reports the race).
__device__ __forceinline__ void sync_atom_release_acquire(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(count), "r"(1u) : "memory");
    const unsigned goal = gridDim.x * round;
    unsigned now = old + 1;
    while (now < goal) asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(count) : "memory");
  }
  __syncthreads();
}

// A counter whose top bit flips once per round: block 0 adds 2^31 - (N - 1), every other block 1,
// so that the N arrivals of a round add exactly 2^31; each block polls until the top bit differs
// from the one its own arrival saw. The arrival counts in one word that never needs a reset, the
// scheme cooperative groups' grid barrier uses (CUDA 13 headers, cooperative_groups/details/sync.h).
__device__ __forceinline__ void sync_flip(unsigned* count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
    unsigned old, now;
    asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(count), "r"(add) : "memory");
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(count) : "memory");
    } while (((old ^ now) & 0x80000000u) == 0);
  }
  __syncthreads();
}

// The same arrival; the spin polls with relaxed loads, and one acquire fence after it orders the
// block's later reads after the other blocks' released writes (a relaxed read that observes a
// release, then fence.acq_rel: the PTX model's release-acquire pattern through a fence).
template <bool Sleep>
__device__ __forceinline__ void sync_simple_relaxed_poll(unsigned* count, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(count), "r"(1u) : "memory");
    const unsigned goal = gridDim.x * round;
    unsigned now;
    for (;;) {
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(count) : "memory");
      if (now >= goal) break;
      if (Sleep) __nanosleep(32);
    }
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  }
  __syncthreads();
}

template <int Method>
__device__ __forceinline__ void barrier(const BarrierState& st, unsigned round, unsigned& sense) {
  if (Method == kSimple) lab07::gpu_sync_simple(st.count, round);
  if (Method == kTree) lab07::gpu_sync_tree(st.groups, st.count, round);
  if (Method == kLockfree) lab07::gpu_sync_lockfree(st.arrive, st.depart, round);
  if (Method == kSense) lab07::gpu_sync_sense(st.count, st.sense, sense);
  if (Method == kSimpleRA) sync_simple_release_acquire(st.count, round);
  if (Method == kAtomRA) sync_atom_release_acquire(st.count, round);
  if (Method == kFlip) sync_flip(st.count);
  if (Method == kRelaxedPoll) sync_simple_relaxed_poll<false>(st.count, round);
  if (Method == kPollSleep) sync_simple_relaxed_poll<true>(st.count, round);
  if (Method == kGridSync) cg::this_grid().sync();
}

// One launch, `rounds` rounds: slot write, barrier, mean with thread t of the next block.
template <int Method>
__global__ void rounds_kernel(float* x, float* slots, BarrierState st, int rounds) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;
  float v = x[i];
  unsigned sense = 0;
  for (int r = 0; r < rounds; ++r) {
    float* buf = slots + (r & 1) * n;
    buf[i] = v;
    barrier<Method>(st, unsigned(r + 1), sense);
    v = 0.5f * (v + buf[j]);
  }
  x[i] = v;
}

// The CPU methods' kernel: one round.
__global__ void round_kernel(const float* cur, float* next) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  next[i] = 0.5f * (cur[i] + cur[(i + blockDim.x) % n]);
}

struct Device {
  float *x = nullptr, *y = nullptr, *slots = nullptr;
  unsigned* state = nullptr;  // count | groups | arrive | depart | sense, zeroed before each run
  size_t state_words = 0;
  BarrierState st{};
  void alloc(size_t n, int max_blocks) {
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&slots, 2 * n * sizeof(float)));
    state_words = 2 + 3 * size_t(max_blocks);
    CHECK(cudaMalloc(&state, state_words * sizeof(unsigned)));
    st.count = state;
    st.sense = state + 1;
    st.groups = state + 2;
    st.arrive = state + 2 + max_blocks;
    st.depart = state + 2 + 2 * max_blocks;
  }
  void reset_state() { CHECK(cudaMemsetAsync(state, 0, state_words * sizeof(unsigned))); }
};

// Runs `rounds` rounds of method m on d.x (blocks x threads floats); the result is in d.x.
void run(int m, Device& d, int blocks, int threads, int rounds) {
  switch (m) {
    case kExplicit:
    case kImplicit:
      for (int r = 0; r < rounds; ++r) {
        round_kernel<<<blocks, threads>>>(r % 2 ? d.y : d.x, r % 2 ? d.x : d.y);
        if (m == kExplicit) CHECK(cudaDeviceSynchronize());
      }
      CHECK(cudaGetLastError());
      if (rounds % 2) CHECK(cudaMemcpyAsync(d.x, d.y, size_t(blocks) * threads * sizeof(float), cudaMemcpyDeviceToDevice));
      break;
    default: {
      // Every one-launch method goes through the cooperative launch, as grid.sync() must: the
      // runtime then refuses a grid that cannot be resident at once (instead of a hang), and
      // every method gets the same launch path and block placement.
      const void* k = m == kSimple     ? (const void*)rounds_kernel<kSimple>
                      : m == kTree     ? (const void*)rounds_kernel<kTree>
                      : m == kLockfree ? (const void*)rounds_kernel<kLockfree>
                      : m == kSense    ? (const void*)rounds_kernel<kSense>
                      : m == kSimpleRA ? (const void*)rounds_kernel<kSimpleRA>
                      : m == kAtomRA   ? (const void*)rounds_kernel<kAtomRA>
                      : m == kFlip     ? (const void*)rounds_kernel<kFlip>
                      : m == kRelaxedPoll ? (const void*)rounds_kernel<kRelaxedPoll>
                      : m == kPollSleep ? (const void*)rounds_kernel<kPollSleep>
                                       : (const void*)rounds_kernel<kGridSync>;
      void* args[] = {&d.x, &d.slots, &d.st, &rounds};
      CHECK(cudaLaunchCooperativeKernel(k, dim3(blocks), dim3(threads), args, 0, nullptr));
      break;
    }
  }
  CHECK(cudaGetLastError());
}

std::vector<float> host_rounds(std::vector<float> v, int blocks, int threads, int rounds) {
  const size_t n = v.size();
  for (int r = 0; r < rounds; ++r) {
    std::vector<float> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = 0.5f * (v[i] + v[(i + threads) % n]);
    v = w;
  }
  (void)blocks;
  return v;
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned long long s = 0x9e3779b97f4a7c15ull ^ seed;
  for (float& f : v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    f = float(s % 100000) / 1000.0f;
  }
  return v;
}

// Median of reps timed calls (CUDA events around each), after one untimed warm-up.
double median_ms(int reps, const std::function<void()>& before, const std::function<void()>& body) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  before();
  body();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    before();
    CHECK(cudaEventRecord(a));
    body();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// ---- applications: the same kernels with and without their barriers ------------------------------
template <bool Sync>
__global__ void bitonic_kernel(unsigned* keys, int n) {
  cg::grid_group grid = cg::this_grid();
  const int stride = gridDim.x * blockDim.x;
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int l = i ^ j;
        if (l <= i) continue;
        const unsigned x = keys[i], y = keys[l];
        if ((x > y) == ((i & k) == 0)) {
          keys[i] = y;
          keys[l] = x;
        }
      }
      if (Sync) grid.sync();
    }
}

template <bool Sync>
__global__ void sw_kernel(const char* a, int m, const char* b, int n, int* H) {
  cg::grid_group grid = cg::this_grid();
  const int stride = gridDim.x * blockDim.x, w = n + 1;
  for (int d = 2; d <= m + n; ++d) {
    const int lo = d - n > 1 ? d - n : 1, hi = d - 1 < m ? d - 1 : m;
    for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i <= hi; i += stride) {
      const int j = d - i;
      H[i * w + j] = lab07::sw_cell(H[(i - 1) * w + j - 1], H[(i - 1) * w + j], H[i * w + j - 1], a[i - 1], b[j - 1]);
    }
    if (Sync) grid.sync();
  }
}

void coop(const void* k, int blocks, int threads, void** args) {
  CHECK(cudaLaunchCooperativeKernel(k, dim3(blocks), dim3(threads), args, 0, nullptr));
}

void applications(int blocks, int threads, int reps, int sort_log2, int sw_len) {
  // Bitonic sort.
  const int n = 1 << sort_log2;
  std::vector<unsigned> keys(n);
  unsigned long long s = 12345;
  for (unsigned& k : keys) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    k = unsigned(s);
  }
  unsigned* dk;
  CHECK(cudaMalloc(&dk, n * sizeof(unsigned)));
  auto upload = [&] { CHECK(cudaMemcpy(dk, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice)); };
  int nn = n;
  void* args[] = {&dk, &nn};
  upload();
  coop((const void*)bitonic_kernel<true>, blocks, threads, args);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n), want = keys;
  CHECK(cudaMemcpy(got.data(), dk, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::sort(want.begin(), want.end());
  const bool sorted = got == want;
  const double t_all = median_ms(reps, upload, [&] { coop((const void*)bitonic_kernel<true>, blocks, threads, args); });
  const double t_comp = median_ms(reps, upload, [&] { coop((const void*)bitonic_kernel<false>, blocks, threads, args); });
  long long steps = lab07::bitonic_barriers(n);
  std::printf("\nApplications, <<<%d, %d>>>, cooperative launch, grid.sync() as the barrier (median of %d runs):\n",
              blocks, threads, reps);
  std::printf("| application | barriers | total (ms) | computation (ms) | synchronization (ms) | sync share | check |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
  std::printf("| bitonic sort, 2^%d keys | %lld | %.3f | %.3f | %.3f | %.0f%% | %s |\n", sort_log2, steps, t_all, t_comp,
              t_all - t_comp, 100.0 * (t_all - t_comp) / t_all, sorted ? "sorted" : "NOT SORTED");
  CHECK(cudaFree(dk));
  // Smith-Waterman.
  const int m = sw_len, nb = sw_len;
  std::string A(m, 'A'), B(nb, 'A');
  for (int i = 0; i < m; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    A[i] = "ACGT"[s % 4];
  }
  for (int i = 0; i < nb; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    B[i] = "ACGT"[s % 4];
  }
  char *da, *db;
  int* dH;
  const size_t cells = size_t(m + 1) * (nb + 1);
  CHECK(cudaMalloc(&da, m));
  CHECK(cudaMalloc(&db, nb));
  CHECK(cudaMalloc(&dH, cells * sizeof(int)));
  CHECK(cudaMemcpy(da, A.data(), m, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, B.data(), nb, cudaMemcpyHostToDevice));
  auto zero = [&] { CHECK(cudaMemset(dH, 0, cells * sizeof(int))); };
  int mm = m, nn2 = nb;
  void* sargs[] = {&da, &mm, &db, &nn2, &dH};
  zero();
  coop((const void*)sw_kernel<true>, blocks, threads, sargs);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> H(cells), R(cells, 0);
  CHECK(cudaMemcpy(H.data(), dH, cells * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 1; i <= m; ++i)
    for (int j = 1; j <= nb; ++j)
      R[size_t(i) * (nb + 1) + j] = lab07::sw_cell(R[size_t(i - 1) * (nb + 1) + j - 1], R[size_t(i - 1) * (nb + 1) + j],
                                                   R[size_t(i) * (nb + 1) + j - 1], A[i - 1], B[j - 1]);
  const bool right = H == R;
  const double s_all = median_ms(reps, zero, [&] { coop((const void*)sw_kernel<true>, blocks, threads, sargs); });
  const double s_comp = median_ms(reps, zero, [&] { coop((const void*)sw_kernel<false>, blocks, threads, sargs); });
  std::printf("| Smith-Waterman fill, %d x %d | %lld | %.3f | %.3f | %.3f | %.0f%% | %s |\n", m, nb,
              lab07::sw_barriers(m, nb), s_all, s_comp, s_all - s_comp, 100.0 * (s_all - s_comp) / s_all,
              right ? "matches the host" : "WRONG");
  std::printf("(computation: the same kernel without its grid.sync() calls, timed only; its results are wrong)\n");
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dH));
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1024, rounds = 10000, reps = 7;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--smoke") smoke = true;
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: lab07_barriers [--threads T] [--rounds R] [--reps N] [--smoke]\n");
      return 2;
    }
  }
  if (smoke) threads = 32, rounds = 4, reps = 1;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0, per_sm_coop = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds_kernel<kLockfree>, threads, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_coop, rounds_kernel<kGridSync>, threads, 0));
  const int most = std::min(per_sm, per_sm_coop) * prop.multiProcessorCount;
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab07_barriers: %s (%d SMs), %s; %d threads per block, %d blocks co-resident (%d per SM)\n",
              prop.name, prop.multiProcessorCount, date, threads, most, std::min(per_sm, per_sm_coop));
  std::vector<int> counts;
  for (int b = 1; b < prop.multiProcessorCount && b <= most; b *= 2) counts.push_back(b);
  if (prop.multiProcessorCount <= most) counts.push_back(prop.multiProcessorCount);
  if (most != counts.back()) counts.push_back(most);
  if (smoke) counts = {1, std::min(2, most)};
  Device d;
  d.alloc(size_t(most) * threads, most);
  const int cpu_rounds = smoke ? rounds : std::max(1, rounds / 5);

  // Correct first: every method, every block count, a few rounds against the host.
  bool all_ok = true;
  for (int b : counts)
    for (int m = 0; m < kMethods; ++m) {
      if (m == kLockfree && b > threads) continue;
      const size_t n = size_t(b) * threads;
      const std::vector<float> in = random_floats(n, unsigned(b * 7 + m));
      CHECK(cudaMemcpy(d.x, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      d.reset_state();
      run(m, d, b, threads, 5);
      CHECK(cudaDeviceSynchronize());
      std::vector<float> got(n);
      CHECK(cudaMemcpy(got.data(), d.x, n * sizeof(float), cudaMemcpyDeviceToHost));
      if (got != host_rounds(in, b, threads, 5)) {
        std::printf("WRONG: %s with %d blocks differs from the host reference\n", kNames[m], b);
        all_ok = false;
      }
    }
  std::printf("check: %s\n", all_ok ? "every method matches the host reference at every block count" : "FAILED");
  if (!all_ok) return 1;

  std::printf("\nTime per barrier round (us): median of %d runs of %d rounds (%d for explicit and implicit)\n", reps,
              rounds, cpu_rounds);
  std::printf("| blocks |");
  for (int m = 0; m < kMethods; ++m) std::printf(" %s |", kNames[m]);
  std::printf(" best barrier / grid.sync |\n| ---: |");
  for (int m = 0; m <= kMethods; ++m) std::printf(" ---: |");
  std::printf("\n");
  for (int b : counts) {
    std::printf("| %d |", b);
    double t[kMethods];
    for (int m = 0; m < kMethods; ++m) {
      t[m] = -1;
      if (m == kLockfree && b > threads) {
        std::printf(" - |");
        continue;
      }
      const int r = m <= kImplicit ? cpu_rounds : rounds;
      const double ms = median_ms(reps, [&] { d.reset_state(); }, [&] { run(m, d, b, threads, r); });
      t[m] = 1000.0 * ms / r;
      std::printf(" %.3f |", t[m]);
    }
    double best = 1e30;
    for (int m = kSimple; m < kGridSync; ++m)
      if (t[m] > 0) best = std::min(best, t[m]);
    std::printf(" %.2fx |\n", best / t[kGridSync]);
    std::fflush(stdout);
  }
  if (smoke)
    applications(2, 32, 1, 8, 24);
  else
    applications(prop.multiProcessorCount, threads, reps, 20, 2048);
  return 0;
}
