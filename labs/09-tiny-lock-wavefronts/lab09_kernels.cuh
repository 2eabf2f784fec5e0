// Lab 09 (tiny-lock wavefronts): what the student files define, and what they share with the
// harness. The lock table and its operations are in tinylock.cuh.
#pragma once

#include <cuda_runtime.h>

#include "tinylock.cuh"

// ---- task 1: a producer-consumer channel on a lock bit (locks.cu) ----------------------------
// A one-value channel: the lock bit of `slot` says whether the slot is full. One producer thread
// puts, one consumer thread gets (paper, section 4.3: a lock bit guarding the value it sits beside).
// put waits until the slot is empty, writes v into it and marks it full; get waits until it is
// full, reads the value and marks it empty. The next put may then reuse the slot.
__device__ void channel_put(TinyLockTable& t, int* slot, int v);
__device__ int channel_get(TinyLockTable& t, int* slot);
// Provided (locks.cu): one block of 64 threads; lane l of warp 0 sends channel_value(l, i) for
// i = 0..values-1 through slot[l] to lane l of warp 1, which writes them to out[l * values + i].
__global__ void channel_pairs(int* out, int values);
__host__ __device__ inline int channel_value(int lane, int i) { return lane * 1000 + i * 7 + 1; }

// ---- task 2: the SIMD deadlock (locks.cu) -----------------------------------------------------
// One block: thread i adds 1 to hist[keys[i]] (a __shared__ array of `bins` counters) while it
// holds the tiny lock of that counter, then the block writes hist to out. Lanes of one warp with
// the same key want the same bit.
constexpr int kMaxBins = 64;
__global__ void lock_count(const int* keys, int n, int bins, int* out, LockLog* log);
// Questions 1 and 2 (README, task 2): the student's short answers, a row each (TODO(2q)).
const char* task2_answers_text();

// ---- task 3: the alias deadlock (locks.cu) ----------------------------------------------------
// Account i's balance is balance[i] (kAccounts ints in shared memory: accounts i and i + 1024 are
// 4096 bytes apart, so their lock bits alias). Lane 0 of warp w moves amount[w] from account
// from[w] to account to[w], holding the tiny locks of both balances while it does.
constexpr int kAccounts = 2048;
__global__ void transfers(const int* from, const int* to, const int* amount, int* balance, LockLog* log);

// ---- task 4: the 16-warp validation kernel (chain.cu) ---------------------------------------------
// The paper's Listing 10 on 16 warps (section 5): A[tid + 32] = A[tid] + tid, where warp w's lanes
// need what warp w - 1 wrote. Each scheme has a setup (every thread, before the block barrier) and
// a hop (wait for warp w - 1 when w > 0, compute A[tid + 32], let warp w + 1 go).
constexpr int kChainWarps = 16;
constexpr int kChainThreads = 32 * kChainWarps;
enum class Scheme : int { atom_lock, warp_barr, shrd_lock, tiny_lock, warp_vote, mbarrier, flag };
constexpr int kSchemes = 7;

// The mbarrier wait: try_wait (sm_90) may wait a while in hardware before it answers; sm_80 has only test_wait, which
// answers at once (the GPU build also makes sm_80 code). The simulator runs the PTX of either.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900
#define SYNCLAB_MBAR_WAIT "mbarrier.test_wait"
#else
#define SYNCLAB_MBAR_WAIT "mbarrier.try_wait"
#endif

// What every scheme's hop may use: the block's shared memory.
struct ChainShared {
  int A[kChainThreads + 32];
  int mutex[kChainThreads];              // atom_lock: one spin lock per thread; shrd_lock: per warp
  int ready[kChainWarps];                // flag: one flag per warp
  unsigned long long mbar[kChainWarps];  // mbarrier: one per warp
  TinyLockTable locks;                   // tiny_lock, warp_vote
};

// Task 4a (chain.cu): the tiny-lock scheme (the paper's Listing 13).
__device__ void tiny_lock_setup(ChainShared& s, int tid);
__device__ void tiny_lock_hop(ChainShared& s, int tid, int wid);
// Task 4b (chain.cu): one flag per warp, release/acquire.
__device__ void flag_setup(ChainShared& s, int tid);
__device__ void flag_hop(ChainShared& s, int tid, int wid);

// ---- task 5: Needleman-Wunsch as a wavefront and as dataflow (nw.cu) ------------------------------
// S is (n + 1) x (n + 1) ints, row-major, row 0 and column 0 filled by the harness; n is a multiple
// of kNwTile. a and b: the two sequences (n letters, 0..3 each). nw_tile.cuh has the tile kernel.
constexpr int kNwTile = 16;
constexpr int kNwGap = 1;                                                          // k of Equation 1
__host__ __device__ inline int nw_match(int x, int y) { return x == y ? 2 : -1; }  // p(i, j)
// Task 5a: the data-parallel wavefront: one launch per anti-diagonal of tiles, every tile of it at
// once (a block each).
void nw_wavefront(int* S, const int* a, const int* b, int n);
// Task 5b: dataflow in one launch of (n / kNwTile)^2 blocks: each block takes a ticket from
// *next_tile, and the ticket's tile along the anti-diagonals (nw_tile_of_ticket: the tiles it
// needs were taken by blocks that started before it), waits for their ready flags, computes its
// tile and raises ready[ti * tiles + tj].
__global__ void nw_dataflow(int* S, const int* a, const int* b, int n, int* ready, int* next_tile);

// Provided (chain_kernel.cuh, compiled in chain.cu): one block of 512 threads runs the scheme;
// out[tid] = A[tid + 32] afterwards, cycles[0] = clock64() cycles from the block barrier to the
// end of warp 15's hop. input: A[0..31].
void launch_chain(Scheme s, const int* input, int* out, long long* cycles);
// The scheme's kernel (for naming its shared memory as a region in a trace).
const void* chain_kernel_address(Scheme s);
// Question 3 (README, task 4): the student's short answers, a row each (chain.cu, TODO(4q)).
const char* task4_answers_text();

// ---- task 6: a hand-over of your own design (own_pipeline.cu) -------------------------------------
// A pipeline of kPipeWarps warps in one block. Warp 0 makes `values` values per lane
// (pipe_value); each warp w > 0 receives them one at a time from warp w - 1, applies pipe_step,
// and hands the result on to warp w + 1; the last warp writes out[lane * values + i]. The link
// from warp w - 1 into warp w is yours to design; the contract (README, task 6):
//   - pipe_send(s, w, lane, v): lane `lane` of warp w - 1 hands v to lane `lane` of warp w; all 32
//     lanes of warp w - 1 call it together, once per value, in order. pipe_receive(s, w, lane):
//     lane `lane` of warp w returns the next value handed to it; all 32 lanes of warp w call it
//     together. Every value arrives exactly once and in the order sent, however far apart the two
//     warps run (a send must not overwrite a value its receiver has not yet taken);
//   - memory: the link into warp w is s.value[w] (one value per lane) and s.word[w]
//     (kPipeLinkWords words), all 0 before the first value; no variables of your own
//     (__shared__ or __device__). No __syncthreads(): the other warps are not at it. Named
//     barriers 1-15 (bar.sync / bar.arrive with a thread count) are yours if you want them;
//   - cost: at most two atomic operations per warp and value (an atomic per lane is 32).
// Graded by these properties only, under both warp models and both memory models.
constexpr int kPipeWarps = 8;
constexpr int kPipeLinkWords = 4;
struct PipeShared {
  int value[kPipeWarps][32];              // value[w][lane]: the link into warp w (w >= 1)
  int word[kPipeWarps][kPipeLinkWords];   // word[w][...]: the link into warp w, yours
};
__device__ void pipe_send(PipeShared& s, int w, int lane, int v);
__device__ int pipe_receive(PipeShared& s, int w, int lane);
// Provided (own_pipeline.cu): one block of 32 x kPipeWarps threads, `values` values per lane.
__global__ void pipeline(int* out, int values);
__host__ __device__ inline int pipe_value(int lane, int i) { return lane * 1000 + i * 7 + 1; }
__host__ __device__ inline int pipe_step(int w, int lane, int v) { return 3 * v + 100 * w + lane; }
