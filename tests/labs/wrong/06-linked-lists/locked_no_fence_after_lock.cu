// WRONG SOLUTION (lab 06, task 1a): try_lock returns true as soon as its atomicCAS wins, with no
// fence after it: the new holder may read the head from before the previous holder's unlock.
// WRONG-REPLACES: locked.cu
// WRONG-FAILS: lab06 task1a push_locked keeps every node within one warp and across blocks under both memory models
// WRONG-MESSAGE: race at locked_no_fence_after_lock\.cu:[0-9]+
// WRONG-MESSAGE: did not acquire
// WRONG-MESSAGE: put __threadfence\(\) right after the atomicCAS that wins it
//
// Lab 06, task 1: insertion at the head of a linked list under a lock (seed 004, slides
// "Concurrent Linked List": one lock with the list, "lock head first, then copy", and inserting
// as the second node).
//
// 1a. try_lock, unlock, push_node_locked: take the list's lock, link the node in at the head,
//     release the lock.
// 1b. insert_second_locked: insert after the first node, under the first node's own lock.
#include "lab06_kernels.cuh"

namespace lab06 {

// One attempt to take a lock word (lab 03's try_lock): true when this thread now holds it, and
// then it sees everything the previous holder wrote.
__device__ bool try_lock(int* lock) {
  return atomicCAS(lock, 0, 1) == 0;
}

// Releases a lock word: the critical section's writes must be visible before it looks free.
__device__ void unlock(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

// ---- 1a: one lock with the list -----------------------------------------------------------------
// Pushes `node` (with `value`) at the head of the list at *head, whose lock word is *lock. It must
// work within one warp too, under both warp models (lab 03, task 1c).
__device__ void push_node_locked(int* head, int* lock, Pool pool, int node, int value) {
  bool done = false;
  while (!done) {
    if (try_lock(lock)) {
      pool.value[node] = value;
      pool.next[node] = *head;
      *head = node;
      unlock(lock);
      done = true;
    }
  }
}

// ---- 1b: insert as the second node ----------------------------------------------------------------
// Inserts `node` right after `first`, which never leaves the head: locking it is enough.
__device__ void insert_second_locked(Pool pool, int first, int node, int value) {
  bool done = false;
  while (!done) {
    if (try_lock(&pool.lock[first])) {
      pool.value[node] = value;
      pool.next[node] = *(volatile int*)&pool.next[first];
      *(volatile int*)&pool.next[first] = node;
      unlock(&pool.lock[first]);
      done = true;
    }
  }
}

// Provided: each thread pushes its node.
__global__ void push_locked(Lists lists, Pool pool) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  const int list = node % lists.count;
  push_node_locked(&lists.head[list], &lists.lock[list], pool, node, node_value(node));
}

// Provided: node l is the first node of list l; thread g inserts node lists.count + g.
__global__ void push_second(Lists lists, Pool pool) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int node = lists.count + g;
  insert_second_locked(pool, g % lists.count, node, node_value(node));
}

}  // namespace lab06
