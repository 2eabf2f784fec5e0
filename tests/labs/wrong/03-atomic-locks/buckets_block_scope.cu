// WRONG SOLUTION (lab 03, task 4): the bucket locks built from block-scope atomics and fences
// (atomicCAS_block, __threadfence_block, atomicExch_block). They look cheaper, but threads of
// different blocks insert into the same bucket: block scope neither makes the CAS atomic towards
// other blocks nor orders one block's critical section before another block's.
// WRONG-REPLACES: buckets.cu
// WRONG-FAILS: lab03 task4 insert_keys fills every bucket exactly under heavy contention
// WRONG-MESSAGE: at buckets_block_scope\.cu:[0-9]+
// WRONG-MESSAGE: insufficient.scope
//
// Lab 03, task 4: a hash table with one lock per bucket. Threads that insert into different
// buckets do not wait for each other; threads of one bucket take turns, and lanes of one warp
// may want the same bucket (or different ones) in the same iteration.
//
// 4. insert_keys: every key into its bucket, under that bucket's lock, with the optional backoff.
#include "lab03_kernels.cuh"

namespace lab03 {

__global__ void insert_keys(const int* keys, int n, BucketTable t, unsigned backoff_ns) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int key = keys[i];
    const int b = bucket_of(key, t.buckets);
    bool done = false;
    while (!done) {
      if (atomicCAS_block(&t.locks[b], 0, 1) == 0) {
        __threadfence_block();  // acquire
        const int k = t.counts[b];
        t.items[b * t.capacity + k] = key;
        t.counts[b] = k + 1;
        __threadfence_block();  // release
        atomicExch_block(&t.locks[b], 0);
        done = true;
      }
      // Not an `else` of the if above: with one, nvcc moves the critical section after the loop
      // (a CAS loop, then the section), the shape that deadlocks under lockstep (README, task 4).
      if (!done && backoff_ns > 0) __nanosleep(backoff_ns);
    }
  }
}

}  // namespace lab03
