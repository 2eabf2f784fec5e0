// Lab 03 (atomic locks): the kernels of the student files, declared for the harness. Provided;
// do not change the signatures (the harness and the graded tests launch these).
#pragma once

#include <cuda_runtime.h>

namespace lab03 {

// The words a counting kernel works on (global memory, all zero before the launch).
struct Counters {
  int* lock;      // the lock word: 0 free, 1 taken
  int* counter;   // the critical section adds to it with a plain load and store
  int* sections;  // the critical section adds 1 to it (plain): how often the lock was held
};

// Task 1 (lock.cu). Every thread adds 1 to *c.counter `rounds` times, each time in a critical
// section of its own; any grid shape.
__global__ void count_naive(Counters c, int rounds);   // provided: the CPU-style lock
__global__ void count_locked(Counters c, int rounds);  // yours: correct within and across warps

// Task 2 (single.cu).
// 2a: exactly one thread of the whole grid runs the single section: *entered += 1 and
//     *chosen = its global index. flag, entered, chosen are zero before the launch.
__global__ void single_grid(int* flag, int* entered, int* chosen);
// 2b: exactly one thread of each block b runs it: entered[b] += 1, chosen[b] = its threadIdx.x.
__global__ void single_per_block(int* entered, int* chosen);

// Task 3 (puzzle.cu): seed 004's atomicCAS puzzle. Instead of printf, each "Thread T succeeded K."
// line is appended to log as T * 4 + K (*lines counts them); gg is zero before the launch.
__global__ void cas_puzzle(int* gg, int* log, int* lines);

// Task 4 (buckets.cu): a hash table of `buckets` buckets, each with a lock word and room for
// `capacity` keys: bucket b holds counts[b] keys in items[b * capacity ...].
struct BucketTable {
  int buckets;
  int capacity;
  int* locks;   // one lock word per bucket, zero before the launch
  int* counts;  // zero before the launch
  int* items;
};
// Every key keys[0..n) goes into bucket bucket_of(key, buckets) (grid-stride over the keys).
// backoff_ns > 0: sleep that long after each failed attempt to take a lock.
__global__ void insert_keys(const int* keys, int n, BucketTable t, unsigned backoff_ns);

// The bucket of a key (a multiplicative hash).
__host__ __device__ inline int bucket_of(int key, int buckets) {
  return int((unsigned(key) * 2654435761u >> 8) % unsigned(buckets));
}

// Task 5 (contention.cu). The same job as count_locked.
// 5a: with exponential backoff (__nanosleep) between failed attempts.
__global__ void count_backoff(Counters c, int rounds);
// 5b: warp-aggregated: one lane per warp takes the lock for the whole warp, once per round, and
//     adds the warp's count in one critical section. Blocks are a multiple of 32 threads.
__global__ void count_warp_aggregated(Counters c, int rounds);

constexpr unsigned kMaxBackoffNs = 1024;  // the cap for 5a's backoff

// ---- task 6 (own_lock.cu): a lock of your own design that stays cheap under contention ------------
// The critical section of task 6 (provided): it adds 1 to *counter with a plain load and store,
// and writes into entered[k] (k: the count before) the request number of the thread that entered.
// Its parts are the harness's bookkeeping, not the lock's: own_locked may only call run().
class OwnSection {
 public:
  __device__ OwnSection(int* counter, int* entered, int request)
      : counter_(counter), entered_(entered), request_(request) {}
  __device__ void run() const {
    const int k = *counter_;
    entered_[k] = request_;
    *counter_ = k + 1;
  }

 private:
  int* counter_;  // 0 before the launch
  int* entered_;  // entered[k]: the request number of the k-th section to run
  int request_;   // this thread's request number, taken (atomicAdd) just before own_locked
};
// own_locked(state, s) runs s.run() once, under a lock of your own design, and returns. The
// contract (README, task 6). The graded tests check the first two rules on the runs they make
// (the cost as the total of one run with 32 threads contending), and nothing else; the third is a
// rule of the design that they do not check:
//   - mutual exclusion and progress: no two sections run at once, and every call returns,
//     whichever threads call it (lanes of one warp, warps of one block, blocks), under both warp
//     models (no SIMD deadlock) and both memory models;
//   - cost under contention: at most two atomic operations per section, however many threads wait
//     (a waiting thread that retries an atomic pays one per try);
//   - memory: state, kOwnLockWords words of global memory, 0 before the launch; no variables of
//     your own.
constexpr int kOwnLockWords = 64;
__device__ void own_locked(unsigned* state, const OwnSection& s);
// Provided (own_lock.cu): each thread takes `rounds` request numbers from *requests (atomicAdd),
// and runs a section under own_locked for each.
__global__ void own_count(unsigned* state, int* requests, int* counter, int* entered, int rounds);

}  // namespace lab03
