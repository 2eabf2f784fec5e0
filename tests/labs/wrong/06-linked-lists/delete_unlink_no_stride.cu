// WRONG SOLUTION (lab 06, task 3): unlink_marked handles one node per thread, without the
// grid-stride loop that mark_nodes has: with fewer threads than nodes, some marked nodes stay linked.
// WRONG-REPLACES: delete.cu
// WRONG-FAILS: lab06 task3 mark_nodes and unlink_marked delete the marked nodes under every schedule
// WRONG-MESSAGE: marked node [0-9]+ is still linked
// WRONG-MESSAGE: unlink_marked needs a grid-stride loop
// WRONG-MESSAGE: replay: build/bin/sim/lab06 delete --n 24 --divisor 3 --blocks 2 --threads 4
//
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
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (i != 0 && pool.value[i] % divisor == 0) pool.mark[i] = 1;
}

// Unlinks every marked node. Hint: decide which threads write, and which nexts they write, so that
// no next is written by one thread and read by another in this launch.
__global__ void unlink_marked(Pool pool, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (pool.mark[i]) return;
    int nx = pool.next[i];
    while (nx != kNull && pool.mark[nx]) nx = pool.next[nx];
    pool.next[i] = nx;
  }
}

}  // namespace lab06
