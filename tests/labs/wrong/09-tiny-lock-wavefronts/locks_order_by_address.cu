// WRONG SOLUTION (lab 09, task 3): the two locks taken in the order of their addresses, the usual
// cure for a lock-order deadlock; but two accounts 1024 apart share one lock bit, and a warp that
// holds it waits for it again (the alias deadlock).
// WRONG-REPLACES: locks.cu
// WRONG-FAILS: lab09 task3 transfers between aliasing accounts finish and keep every balance
// WRONG-MESSAGE: waits for lock bit [0-9]+ for account [0-9]+ \(address 0x[0-9a-f]+\), a bit it holds itself
// WRONG-MESSAGE: taken for account [0-9]+ \(address 0x[0-9a-f]+\): an alias deadlock
// WRONG-MESSAGE: When tl_bit\(a\) == tl_bit\(b\), take that bit once
// Lab 09, tasks 1-3: a channel on a lock bit, and the paper's two deadlocks (README.md). The lock
// table is tinylock.cuh's emulation of the Fermi lock unit: tl_try_lock, tl_lock, tl_unlock,
// tl_is_set, tl_set, tl_clear.
#include "lab09_kernels.cuh"

// ---- task 1: the channel --------------------------------------------------------------------------
__device__ void channel_put(TinyLockTable& t, int* slot, int v) {
  // TODO(1a) wait until the slot is empty, write v, mark it full (about 4 lines)
  while (tl_is_set(t, slot)) {
  }
  __threadfence_block();  // the consumer's read of the old value comes before this write
  *slot = v;
  tl_set(t, slot);  // release: the value is in before the bit says so
}

__device__ int channel_get(TinyLockTable& t, int* slot) {
  // TODO(1b) wait until the slot is full, read the value, mark it empty (about 5 lines)
  while (!tl_is_set(t, slot)) {
  }
  __threadfence_block();  // acquire: read the value the producer wrote before it set the bit
  const int v = *slot;
  tl_clear(t, slot);
  return v;
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
    int* counter = &hist[keys[i]];
    // TODO(2) add 1 to *counter while holding its tiny lock, in a way that cannot SIMD-deadlock
    // (about 7 lines)
    volatile bool done = false;  // volatile: else nvcc may move the count and unlock after the loop
    while (!done) {
      if (tl_try_lock(locks, counter, log)) {
        *counter += 1;
        tl_unlock(locks, counter, log);
        done = true;
      }
    }
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
naive_lockstep    deadlock     # the lanes that did not get the bit spin; the one that did waits for them
naive_its         finishes     # the holder runs on: its lanes are scheduled one by one
naive_waits       after-loop   # the warp reconverges where tl_lock's loop ends, after every lane has the bit
unlock            after-loop   # nvcc moves the count and the unlock after the loop: the SIMD deadlock again
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
    int* a = &account[from[w]];
    int* b = &account[to[w]];
    // TODO(3) hold the tiny locks of *a and *b while moving amount[w] from a to b, without
    // deadlocking with another warp or with yourself (about 8 lines)
    int* first = a < b ? a : b;  // addresses in one order for everybody
    int* second = first == a ? b : a;
    const bool one_bit = a == b;  // the same account: one lock
    tl_lock(locks, first, log);
    if (!one_bit) tl_lock(locks, second, log);
    *a -= amount[w];
    *b += amount[w];
    if (!one_bit) tl_unlock(locks, second, log);
    tl_unlock(locks, first, log);
  }
  __syncthreads();
  for (int a = int(threadIdx.x); a < kAccounts; a += int(blockDim.x)) balance[a] = account[a];
}
