// Lab 06, task 3: deletion in two steps, marking then unlinking (seed 004, slides "Concurrent
// Data Structures": deletion [marking, actual removal]).
//
// 3a. mark_nodes: mark the nodes to delete. A mark is a logical deletion: readers skip the node,
//     nothing is unlinked yet, so marks never conflict with each other.
// 3b. unlink_marked: take the marked nodes out. Two neighbours may both be marked: make sure no
//     thread writes a next that another thread reads in the same launch.
#include "lab06_kernels.cuh"

namespace lab06 {

__global__ void mark_nodes(Pool pool, int n, int divisor) {
  // TODO(3a): a grid-stride loop over the nodes; mark node i != 0 when its value is a multiple of
  // divisor (about 2 lines)
  (void)pool;
  (void)n;
  (void)divisor;
}

// Unlinks every marked node. Hint: decide which threads write, and which nexts they write, so that
// no next is written by one thread and read by another in this launch.
__global__ void unlink_marked(Pool pool, int n) {
  // TODO(3b): a grid-stride loop over the nodes (about 5 lines)
  (void)pool;
  (void)n;
}

}  // namespace lab06
