// Lab 09, tasks 1-3: a channel on a lock bit, and the paper's two deadlocks (README.md). The lock
// table is tinylock.cuh's emulation of the Fermi lock unit: tl_try_lock, tl_lock, tl_unlock,
// tl_is_set, tl_set, tl_clear.
#include "lab09_kernels.cuh"

// ---- task 1: the channel --------------------------------------------------------------------------
__device__ void channel_put(TinyLockTable& t, int* slot, int v) {
  // TODO(1a) wait until the slot is empty, write v, mark it full (about 4 lines)
}

__device__ int channel_get(TinyLockTable& t, int* slot) {
  // TODO(1b) wait until the slot is full, read the value, mark it empty (about 5 lines)
  return 0;
}

__global__ void channel_pairs(int* out, int values) {
  __shared__ TinyLockTable locks;
  __shared__ int slot[32];
  tl_init(locks);
  const int lane = int(threadIdx.x) % 32;
  if (threadIdx.x < 32) {
    for (int i = 0; i < values; ++i) channel_put(locks, &slot[lane], channel_value(lane, i));
  } else if (threadIdx.x < 64) {
    for (int i = 0; i < values; ++i) out[lane * values + i] = channel_get(locks, &slot[lane]);
  }
}

// ---- task 2: the SIMD deadlock ----------------------------------------------------------------------
__global__ void lock_count(const int* keys, int n, int bins, int* out, LockLog* log) {
  __shared__ TinyLockTable locks;
  __shared__ int hist[kMaxBins];
  for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x)) hist[b] = 0;
  if (threadIdx.x == 0 && log) log->base = reinterpret_cast<uintptr_t>(hist);
  tl_init(locks);
  const int i = int(threadIdx.x);
  if (i < n) {
    [[maybe_unused]] int* counter = &hist[keys[i]];
    // TODO(2) add 1 to *counter while holding its tiny lock, in a way that cannot SIMD-deadlock
    // under lockstep (about 7 lines). `lab09 count --version naive` runs the obvious first try
    // (tl_lock; count; tl_unlock) and shows how it deadlocks.
  }
  __syncthreads();
  for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x)) out[b] = hist[b];
}

// TODO(2q): answer questions 1 and 2 of the README (task 2) in the table below: replace each "?"
// with one word. Text after # is a comment; your explanations may go there too (not graded).
// Watch before you answer: `lab09 count --version naive --model lockstep`, then `--model its`.
const char* task2_answers_text() {
  return R"(
# question        answer   (text after # is a comment)
naive_lockstep    ?        # the naive first try (tl_lock; count; tl_unlock) under lockstep: deadlock or finishes
naive_its         ?        # the same under its: deadlock or finishes
naive_waits       ?        # under lockstep, where the lane that got the bit waits: in-loop (it spins on with the others) or after-loop (where tl_lock's loop ends)
unlock            ?        # your Listing 7 loop with `done` not volatile, as nvcc 13.0 compiles it: the unlock in-loop or after-loop
)";
}

// ---- task 3: the alias deadlock ---------------------------------------------------------------------
__global__ void transfers(const int* from, const int* to, const int* amount, int* balance, LockLog* log) {
  __shared__ TinyLockTable locks;
  __shared__ int account[kAccounts];
  for (int a = int(threadIdx.x); a < kAccounts; a += int(blockDim.x)) account[a] = balance[a];
  if (threadIdx.x == 0 && log) log->base = reinterpret_cast<uintptr_t>(account);
  tl_init(locks);
  const int w = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    [[maybe_unused]] int* a = &account[from[w]];
    [[maybe_unused]] int* b = &account[to[w]];
    // TODO(3) hold the tiny locks of *a and *b while moving amount[w] from a to b, without
    // deadlocking with another warp or with yourself (about 10 lines). `lab09 transfer --version
    // naive` runs the obvious first try (tl_lock(a); tl_lock(b); move; unlock both) and shows how
    // it deadlocks.
  }
  __syncthreads();
  for (int a = int(threadIdx.x); a < kAccounts; a += int(blockDim.x)) balance[a] = account[a];
}
