// Lab 07 (global barriers): the kernels and device functions of the student files, declared for the
// harness. Provided; do not change the signatures (the harness and the graded tests use these).
//
// Every barrier is checked by the same exchange (the micro-benchmark of seed 001, section V.C,
// made to depend on other blocks): thread t of block b holds a value x; in round r it writes x to
// its slot, waits at the barrier, then reads the slot of thread t of block (b + 1) % N and sets
// x = 3 x + neighbour + r. The slots alternate between two buffers by round, so one barrier per
// round is enough (round r + 2 writes a buffer only after round r + 1's barrier, which every
// reader of round r has passed).
#pragma once

#include <cuda_runtime.h>

namespace lab07 {

// The methods of the paper (seed 001, sections IV-V), plus a sense-reversing barrier and
// cooperative groups' grid.sync() as the reference.
enum class Method : int {
  cpu_explicit = 0,  // task 1: one launch per round, cudaDeviceSynchronize() between
  cpu_implicit = 1,  // task 2: one launch per round, back to back in one stream
  simple = 2,        // task 3: one atomic counter, the goal grows by N per round (Fig. 4)
  tree = 3,          // task 4: two levels of counters
  lockfree = 4,      // task 5: Arrayin/Arrayout, no atomics (Fig. 6)
  sense = 5,         // task 6: a counter reset by the last block and a flag whose sense flips
  grid_sync = 6,     // provided: cooperative_groups::this_grid().sync(), cooperative launch
};

// The global memory the GPU barriers keep between rounds; the harness zeroes it before a launch.
struct BarrierState {
  unsigned* count;        // simple, sense: one counter; tree: the top-level counter
  unsigned* groups;       // tree: one counter per group of kTreeGroup blocks
  unsigned* arrive;       // lockfree: Arrayin, one word per block
  unsigned* depart;       // lockfree: Arrayout, one word per block
  unsigned* sense;        // sense: the flag whose value flips every round
};

// Blocks per group of the tree barrier (task 4): block b belongs to group b / kTreeGroup; the last
// group may hold fewer.
constexpr int kTreeGroup = 2;

// ---- the exchange's round, shared by every method -------------------------------------------------
__host__ __device__ inline unsigned exchange_step(unsigned x, unsigned neighbour, int round) {
  return 3u * x + neighbour + unsigned(round);
}

// ---- tasks 1 and 2 (cpu_sync.cu) ------------------------------------------------------------------
// Provided: one round of the exchange as a kernel: next[i] = step(cur[i], cur[neighbour of i], round).
__global__ void exchange_round(const unsigned* cur, unsigned* next, int round);
// 1: `rounds` rounds, one launch each, the host waiting for each launch before the next. a holds
//    the input; a and b are blocks x threads words. Returns the buffer that holds the result.
unsigned* cpu_explicit_rounds(unsigned* a, unsigned* b, int blocks, int threads, int rounds);
// 2: the same with the launches back to back in the default stream, no wait between them.
unsigned* cpu_implicit_rounds(unsigned* a, unsigned* b, int blocks, int threads, int rounds);

// ---- tasks 3-6 (gpu_barriers.cu) -------------------------------------------------------------------
// Every thread of every block calls these, `round` = 1, 2, 3, ... (the r-th barrier of the launch).
__device__ void gpu_sync_simple(unsigned* count, unsigned round);                      // 3
__device__ void gpu_sync_tree(unsigned* groups, unsigned* top, unsigned round);         // 4
__device__ void gpu_sync_lockfree(unsigned* arrive, unsigned* depart, unsigned round);  // 5
__device__ void gpu_sync_sense(unsigned* count, unsigned* sense, unsigned& my_sense);   // 6
// Provided (gpu_barriers.cu): the exchange, `rounds` rounds in one launch, a GPU barrier between.
// in and out: one value per thread; slots: 2 x (blocks x threads) words.
__global__ void exchange_gpu(Method method, const unsigned* in, unsigned* out, unsigned* slots, BarrierState st,
                             int rounds);

// ---- task 10 (own_barrier.cu): a grid barrier of your own design --------------------------------
// The contract (README, task 10). Every thread of every block calls own_grid_barrier(state, round)
// with round = 1, 2, 3, ... (the r-th barrier of the launch). Then
//   - no thread returns from its r-th call before every thread of the grid has made its r-th call;
//   - every write a thread made before its r-th call is visible to every read that any thread
//     makes after its own r-th call returns;
//   - it works for any number of co-resident blocks (1 block, and more blocks than threads per
//     block) and any number of rounds, and it never hangs when every block is resident;
//   - its memory is `state`: kOwnWords words of global memory, all 0 before the launch, which no
//     other code touches (no __device__ variables of your own: they would keep their values from
//     one launch to the next); it may not grow with the number of blocks;
//   - it costs at most two atomic operations per block and round.
constexpr int kOwnWords = 32;
__device__ void own_grid_barrier(unsigned* state, unsigned round);
// Provided (own_barrier.cu): the exchange of exchange_gpu with own_grid_barrier between rounds.
__global__ void exchange_own(const unsigned* in, unsigned* out, unsigned* slots, unsigned* state, int rounds);

// ---- task 7 (residency.cu) -------------------------------------------------------------------------
// 7: the most blocks of `threads` threads running `kernel` that the device holds at once.
int coresident_blocks(const void* kernel, int threads);

// ---- tasks 8 and 9 (apps.cu): launched cooperatively, grid.sync() between steps --------------------
// 8: sort keys[0..n) ascending, n a power of two, any number of blocks and threads (grid-stride).
__global__ void bitonic_sort_grid(unsigned* keys, int n);
// 9: fill the Smith-Waterman matrix H ((m + 1) x (n + 1) ints, row-major, row 0 and column 0 are 0
//    before the launch) for sequences a[0..m) and b[0..n), one anti-diagonal at a time.
__global__ void sw_fill_grid(const char* a, int m, const char* b, int n, int* H);
// Provided: one cell of the matrix from its north-west, north and west neighbours.
constexpr int kMatch = 3, kMismatch = -3, kGap = 2;
__host__ __device__ inline int sw_cell(int nw, int north, int west, char x, char y) {
  int h = nw + (x == y ? kMatch : kMismatch);
  h = north - kGap > h ? north - kGap : h;
  h = west - kGap > h ? west - kGap : h;
  return h > 0 ? h : 0;
}
// 9b: how many grid.sync() calls each thread of your fills makes.
long long sw_barriers(int m, int n);
long long bitonic_barriers(int n);

}  // namespace lab07
