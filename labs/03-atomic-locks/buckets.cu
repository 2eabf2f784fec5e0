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
    // TODO(4): run the three lines below holding t.locks[b] (the loop shape of task 1c, with its
    // fences), written out here: the atomicCAS, the fences and the atomicExch inline, not calls
    // of try_lock/unlock (those live in lock.cu, and a device function of another .cu file cannot
    // be called from this one: it links, then fails with "call of undefined device function").
    // When backoff_ns > 0, __nanosleep(backoff_ns) after a failed attempt, in an `if` of its own
    // rather than an `else` (README: the compiler may undo the loop shape). (about 12 lines)
    const int k = t.counts[b];
    t.items[b * t.capacity + k] = key;
    t.counts[b] = k + 1;
    (void)backoff_ns;
  }
}

}  // namespace lab03
