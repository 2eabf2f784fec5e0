// WRONG SOLUTION (lab 06, task 2b): pop_tagged reads the head word with a plain load before its CAS
// loop. Other threads swing the head with atomicCAS meanwhile, and a plain read of a word that
// atomics update races with them: what it returns is not one of the head's values in coherence
// with the CAS (on the simulator, a race report). The CAS's own return value is atomic.
// WRONG-REPLACES: lockfree.cu
// WRONG-FAILS: lab06 task2b pop_push_tagged keeps every node where the naive pop suffers ABA
// WRONG-MESSAGE: race at tagged_plain_head_read\.cu:[0-9]+
// WRONG-MESSAGE: the plain access at .*tagged_plain_head_read\.cu:[0-9]+ is to a word that other accesses of that code update with an atomic
// WRONG-MESSAGE: make that access atomic too \(for a read, atomicAdd\(&word, 0\)
// WRONG-FIX:   unsigned old = *head;\n =>   unsigned old = atomicAdd(head, 0u);\n
//
// Lab 06, task 2: lock-free push with atomicCAS, and a pop that shows ABA (seed 004, slides
// "Concurrent Linked List", classwork "Implement this with atomics").
//
// 2a. push_cas: link the node to the head you saw, then swing the head to it with atomicCAS;
//     when another push got there first, try again from the head the CAS returned.
// 2b. pop_tagged / push_tagged: the provided naive pop and push, with a tag in the head word so
//     that a node that was popped and pushed back no longer looks like the head that was read.
#include "lab06_kernels.cuh"

namespace lab06 {

// ---- 2a: lock-free push ---------------------------------------------------------------------------
// The node's fields are published by the CAS on the head: whoever reads the head and then the node
// must find them written.
__device__ void push_cas(int* head, Pool pool, int node, int value) {
  pool.value[node] = value;
  int old = *(volatile int*)head;
  while (true) {
    pool.next[node] = old;
    __threadfence();  // release: value and next before the CAS that publishes the node
    const int seen = atomicCAS(head, old, node);
    if (seen == old) return;
    old = seen;  // another push won: link to the new head and try again
  }
}

// Provided: each thread pushes its node, then peeks at the head once: reading the head, then (after
// a fence) the value of the node it names, must show that node's value.
__global__ void push_lockfree(Lists lists, Pool pool, int* unpublished) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  const int list = node % lists.count;
  push_cas(&lists.head[list], pool, node, node_value(node));
  const int h = *(volatile int*)&lists.head[list];
  __threadfence();  // acquire: the node's fields after its head
  if (h != kNull && pool.value[h] != node_value(h)) atomicAdd(unpublished, 1);
}

// ---- 2b: pop and push, naive (provided) -----------------------------------------------------------
// The next links are read and written with atomics: a popper may read the next of a node that
// another thread is pushing back at the same time (its CAS then fails, or, with ABA, succeeds).
__device__ int load_next(Pool pool, int node) { return atomicAdd(&pool.next[node], 0); }
__device__ void store_next(Pool pool, int node, int next) { atomicExch(&pool.next[node], next); }

__device__ int pop_naive(int* head, Pool pool) {
  int old = atomicAdd(head, 0);
  while (old != kNull) {
    const int next = load_next(pool, old);
    const int seen = atomicCAS(head, old, next);  // ABA: `old` may have left and come back
    if (seen == old) break;
    old = seen;
  }
  return old;
}

__device__ void push_naive(int* head, Pool pool, int node) {
  int old = atomicAdd(head, 0);
  while (true) {
    store_next(pool, node, old);
    const int seen = atomicCAS(head, old, node);
    if (seen == old) return;
    old = seen;
  }
}

__global__ void pop_push_naive(int* head, Pool pool, int rounds, int* pops) {
  for (int r = 0; r < rounds; ++r) {
    const int node = pop_naive(head, pool);
    if (node == kNull) continue;
    atomicAdd(pops, 1);
    push_naive(head, pool, node);
  }
}

// ---- 2b: the same with a tagged head --------------------------------------------------------------
// Pops the head node (kNull when the stack is empty).
__device__ int pop_tagged(unsigned* head, Pool pool) {
  unsigned old = *head;
  while (index_of(old) != kNull) {
    const unsigned want = pack(tag_of(old) + 1, load_next(pool, index_of(old)));
    const unsigned seen = atomicCAS(head, old, want);
    if (seen == old) break;
    old = seen;
  }
  return index_of(old);
}

// Pushes `node` on the stack.
__device__ void push_tagged(unsigned* head, Pool pool, int node) {
  unsigned old = atomicAdd(head, 0u);
  while (true) {
    store_next(pool, node, index_of(old));
    const unsigned seen = atomicCAS(head, old, pack(tag_of(old) + 1, node));
    if (seen == old) return;
    old = seen;
  }
}

// Provided.
__global__ void pop_push_tagged(unsigned* head, Pool pool, int rounds, int* pops) {
  for (int r = 0; r < rounds; ++r) {
    const int node = pop_tagged(head, pool);
    if (node == kNull) continue;
    atomicAdd(pops, 1);
    push_tagged(head, pool, node);
  }
}

}  // namespace lab06
