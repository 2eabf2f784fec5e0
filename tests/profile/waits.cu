// The profile's waits (docs/profile.md, "What is counted"): spin rounds (loop rounds that come back
// to their loop head with every register of their thread unchanged) and barrier waits (each warp's
// wait at a barrier for its block's slowest warp, by the estimate's latencies). Each kernel is
// counted alone through the control API, and the counts are checked against what the kernel's
// shape makes them: a flag spin waits and a counted loop does not; a block whose warps do unequal
// work before a barrier waits there, more when the difference is larger, and one whose warps do
// the same work does not. Simulator only (a GPU counts neither).
#include <synclab/sim_control.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

constexpr int kWords = 4096;

// Warp 0's lane 0 adds up `work` words and then raises the flag; warp 1 waits for it.
__global__ void flag_spin(const int* in, int work, volatile int* flag, int* out) {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < work; ++i) s += in[i];
    out[0] = s;
    __threadfence();
    *flag = 1;
  } else if (threadIdx.x >= 32) {
    while (*flag == 0) {
    }
    out[threadIdx.x] = 1;
  }
}

// Every thread adds up its own words: its loop's registers change every round.
__global__ void counted_loop(const int* in, int work, int* out) {
  int s = 0;
  for (int i = 0; i < work; ++i) s += in[(threadIdx.x * 8 + i) % kWords];
  out[threadIdx.x] = s;
}

// Each warp reads `loads[warp * 8]` words of its own (one after another: each needs the one
// before), then the block meets at a barrier. (The counts sit 32 bytes apart: in one sector, the
// warp that read it second would find it cached, 350 cycles sooner by the estimate's latencies.)
__global__ void before_barrier(const int* in, const int* loads, int* out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int at = warp * 1024 + lane, s = 0;
  for (int i = 0; i < loads[warp * 8]; ++i) {
    s += in[at];
    at = (at + 32 + (s & 1)) % kWords;
  }
  __syncthreads();
  out[threadIdx.x] = s;
}

synclab_sim_counts count_of(void (*launch)()) {
  synclab::sim::count(true);
  launch();
  CHECK(cudaDeviceSynchronize());
  synclab_sim_counts c{};
  if (!synclab::sim::counters(&c)) {
    std::fprintf(stderr, "waits: no counts (this test runs on the simulator only)\n");
    std::exit(2);
  }
  synclab::sim::count(false);
  return c;
}

int* g_in;
int* g_out;
int* g_flag;
int* g_loads;

void run_barrier(int warp0, int warp1) {
  int loads[16] = {};
  loads[0] = warp0;
  loads[8] = warp1;
  CHECK(cudaMemcpy(g_loads, loads, sizeof loads, cudaMemcpyHostToDevice));
  before_barrier<<<1, 64>>>(g_in, g_loads, g_out);
}

int failures = 0;
void expect(bool ok, const char* what, unsigned long long got) {
  std::printf("%s %s (%llu)\n", ok ? "ok:  " : "FAIL:", what, got);
  failures += !ok;
}

int main() {
  CHECK(cudaMalloc(&g_in, kWords * sizeof(int)));
  CHECK(cudaMalloc(&g_out, kWords * sizeof(int)));
  CHECK(cudaMalloc(&g_flag, sizeof(int)));
  CHECK(cudaMalloc(&g_loads, 16 * sizeof(int)));
  CHECK(cudaMemset(g_in, 0, kWords * sizeof(int)));

  CHECK(cudaMemset(g_flag, 0, sizeof(int)));
  const synclab_sim_counts spin = count_of([] { flag_spin<<<1, 64>>>(g_in, 200, g_flag, g_out); });
  expect(spin.spin_rounds > 0, "flag_spin: warp 1's lanes spin on the flag", spin.spin_rounds);
  expect(spin.spin_thread_instructions > 0 && spin.spin_thread_instructions < spin.thread_instructions,
         "flag_spin: the spin rounds' instructions are part of all", spin.spin_thread_instructions);

  const synclab_sim_counts loop = count_of([] { counted_loop<<<1, 64>>>(g_in, 200, g_out); });
  expect(loop.spin_rounds == 0, "counted_loop: a loop that counts never waits", loop.spin_rounds);
  expect(loop.barrier_wait_cycles == 0, "counted_loop: no barrier, no barrier wait", loop.barrier_wait_cycles);

  const synclab_sim_counts even = count_of([] { run_barrier(8, 8); });
  expect(even.barrier_arrivals == 2, "before_barrier 8/8: two warps arrive", even.barrier_arrivals);
  expect(even.barrier_wait_cycles == 0, "before_barrier 8/8: warps with equal work do not wait",
         even.barrier_wait_cycles);
  const synclab_sim_counts uneven = count_of([] { run_barrier(8, 0); });
  expect(uneven.barrier_wait_cycles > 0, "before_barrier 8/0: warp 1 waits for warp 0", uneven.barrier_wait_cycles);
  const synclab_sim_counts more = count_of([] { run_barrier(16, 0); });
  expect(more.barrier_wait_cycles > uneven.barrier_wait_cycles, "before_barrier 16/0: waits longer than 8/0",
         more.barrier_wait_cycles);
  expect(uneven.spin_rounds == 0 && more.spin_rounds == 0, "before_barrier: no spin", more.spin_rounds);

  std::printf("%s\n", failures ? "waits: FAILED" : "waits: all passed");
  return failures ? 1 : 0;
}
