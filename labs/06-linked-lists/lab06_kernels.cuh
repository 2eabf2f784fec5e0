// Lab 06 (linked lists and worklists): the kernels of the student files, declared for the harness.
// Provided; do not change the signatures (the harness and the graded tests launch these).
//
// Nodes live in a preallocated pool in device memory; a node is an index into its arrays, and a
// next pointer is an index too (kNull ends a list). Index-based links make ABA easy to see: a node
// that leaves a list and comes back has the same index, so a compare-and-swap cannot tell.
#pragma once

#include <cuda_runtime.h>

namespace lab06 {

constexpr int kNull = -1;  // "no node": the end of a list, an empty list

// The node pool: node i is value[i], next[i], lock[i], mark[i] (lock and mark start at 0).
struct Pool {
  int* value;
  int* next;
  int* lock;  // a per-node lock word (task 1b locks the first node of a list)
  int* mark;  // 1: logically deleted (task 3)
};

// `count` lists: list l starts at head[l]; lock[l] is the list's one lock word (task 1a).
struct Lists {
  int* head;
  int* lock;
  int count;
};

// The value a pushed node carries: written by its pusher before the node joins a list.
__host__ __device__ inline int node_value(int node) { return 7 * node + 3; }

// ---- task 1 (locked.cu): insertion under a lock -------------------------------------------------
// 1a: thread g (global index) pushes node g at the head of list g % lists.count, under that list's
//     lock word lists.lock[l]. Heads start at kNull. Any grid shape.
__global__ void push_locked(Lists lists, Pool pool);
// 1b: the lists already hold one node each (list l: node l, which stays first). Thread g inserts
//     node lists.count + g as the SECOND node of list g % lists.count, under the first node's own
//     lock word pool.lock[l].
__global__ void push_second(Lists lists, Pool pool);

// ---- task 2 (lockfree.cu): lock-free push and pop ------------------------------------------------
// 2a: push_locked's job without a lock: atomicCAS on the head. The provided kernel then peeks at
//     the head once and counts, in *unpublished, head nodes whose value it could not yet see.
__global__ void push_lockfree(Lists lists, Pool pool, int* unpublished);
// 2b: a stack of nodes (a list used at its head only). Every thread, `rounds` times, pops a node
//     and pushes it back, and counts its successful pops in *pops. *head is a node index (naive,
//     provided) or a tagged word (yours: tag << 16 | index, index 0xffff for none; see pack()).
__global__ void pop_push_naive(int* head, Pool pool, int rounds, int* pops);
__global__ void pop_push_tagged(unsigned* head, Pool pool, int rounds, int* pops);

// The tagged head of 2b: a 16-bit index (0xffff: none) and a 16-bit tag that changes at every
// successful CAS, so that a head that went away and came back no longer compares equal.
constexpr unsigned kNoIndex = 0xffffu;
__host__ __device__ inline unsigned pack(unsigned tag, int index) {
  return (tag & 0xffffu) << 16 | (index == kNull ? kNoIndex : unsigned(index) & 0xffffu);
}
__host__ __device__ inline int index_of(unsigned word) {
  return (word & 0xffffu) == kNoIndex ? kNull : int(word & 0xffffu);
}
__host__ __device__ inline unsigned tag_of(unsigned word) { return word >> 16; }

// ---- task 3 (delete.cu): deletion by marking, then unlinking -----------------------------------
// The list starts at node 0 (a sentinel that is never deleted) and holds nodes 0..n-1 in some
// order. Both kernels are grid-stride loops over the nodes (any grid shape).
// 3a: mark (pool.mark[i] = 1) every node i != 0 whose value is a multiple of `divisor`.
__global__ void mark_nodes(Pool pool, int n, int divisor);
// 3b: launched after mark_nodes: unlink every marked node, so that the list holds the unmarked
//     nodes in their order. Marked nodes keep their own next (a reader standing on one still
//     finds its way back into the list).
__global__ void unlink_marked(Pool pool, int n);

// ---- task 4 (worklist.cu): worklists --------------------------------------------------------------
// Thread t (global index) pushes counts[t] items, t * kMaxItems + j for j < counts[t], into
// worklist[0 .. *size), in any order; *size starts at 0 and ends at the number of items.
constexpr int kMaxItems = 8;  // counts[t] <= kMaxItems
// 4a: one atomicAdd per item.
__global__ void push_atomic(const int* counts, int* worklist, int* size);
// 4b: warp-aggregated: one atomicAdd per warp (blockDim.x a multiple of 32); a warp's items lie
//     together in the worklist, lane 0's first.
__global__ void push_warp_aggregated(const int* counts, int* worklist, int* size);
// 4c: by prefix sum: block_exclusive_scan (lab06_scan.cuh) gives each thread its offset in the
//     block's share; one atomicAdd per block reserves the share. A block's items lie together,
//     thread 0's first.
__global__ void push_scan(const int* counts, int* worklist, int* size);

// ---- task 6 (own_queue.cu): a bounded queue of your own design ------------------------------------
// The contract (README, task 6). The graded tests check the first three rules on the runs they
// make, and nothing else; the last two are rules of the design, which those runs meet only
// through their effects (a call that waits can stall a lockstep warp: a hang):
//   - a FIFO queue of at most kQueueCapacity values (each value >= 1):
//     queue_push(q, v) puts v at the tail and returns true, or returns false and leaves the queue as
//       it was; it must succeed whenever the queue holds fewer than kQueueCapacity values and no
//       other thread is using it;
//     queue_pop(q, &v) takes the value at the head into v and returns true, or returns false and
//       leaves the queue as it was; it must succeed whenever the queue holds a value and no other
//       thread is using it;
//   - concurrent calls (lanes of one warp, warps, blocks) under both warp models and both memory
//     models: every value pushed is popped exactly once, nothing else is popped, and two values that
//     one thread pushed reach any one thread in the order they were pushed;
//   - cost: with no other thread using the queue, at most two atomic operations for a call that
//     succeeds, and none for a call that finds the queue full (a push) or empty (a pop);
//   - no waiting: a call returns after a bounded number of its own steps, whatever other threads
//     do (it may return false when another thread is in its way; the caller tries again);
//   - memory: q, kQueueWords words of global memory, 0 before the launch; no variables of your own.
constexpr int kQueueCapacity = 8;
constexpr int kQueueWords = 32;
__device__ bool queue_push(unsigned* q, int v);
__device__ bool queue_pop(unsigned* q, int* v);
// Provided (own_queue.cu). queue_pairs: thread g (global index), `rounds` times, pushes the value
// g * rounds + r + 1 (trying until queue_push returns true), then pops one value (trying until
// queue_pop returns true) into got[g * rounds + r]: each thread's pops in the order it made them.
__global__ void queue_pairs(unsigned* q, int rounds, int* got);
// queue_alone: one thread, no other using the queue: `steps` operations, step i a push of the
// value i + 1 when plan[i] is 1, a pop when it is 0; result[i] = 1 or 0 (what the call returned),
// value[i] = the value a successful pop took (0 otherwise).
__global__ void queue_alone(unsigned* q, const int* plan, int steps, int* result, int* value);

}  // namespace lab06
