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

}  // namespace lab03
