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
  // TODO(1a): one atomicCAS, and a fence when it won (about 3 lines)
  (void)lock;
  return false;
}

// Releases a lock word: the critical section's writes must be visible before it looks free.
__device__ void unlock(int* lock) {
  // TODO(1a): a fence, then an atomic store of 0 (about 2 lines)
  (void)lock;
}

// ---- 1a: one lock with the list -----------------------------------------------------------------
// Pushes `node` (with `value`) at the head of the list at *head, whose lock word is *lock. It must
// work within one warp too, under both warp models (lab 03, task 1c).
__device__ void push_node_locked(int* head, int* lock, Pool pool, int node, int value) {
  // TODO(1a): with the lock held: the node's value, its next (the head as it is NOW), the head
  // (about 9 lines)
  (void)head;
  (void)lock;
  (void)pool;
  (void)node;
  (void)value;
}

// ---- 1b: insert as the second node ----------------------------------------------------------------
// Inserts `node` right after `first`, which never leaves the head: locking it is enough.
__device__ void insert_second_locked(Pool pool, int first, int node, int value) {
  // TODO(1b): as 1a, under pool.lock[first], linking the node between first and first's next
  // (about 9 lines)
  (void)pool;
  (void)first;
  (void)node;
  (void)value;
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
