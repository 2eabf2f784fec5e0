// WRONG SOLUTION (lab 06, task 3b): every thread whose successor is marked links past that one
// node. With two marked neighbours, A -> B -> C -> D, thread A reads B's next while thread B
// rewrites it: whether C stays linked depends on which runs first.
// WRONG-REPLACES: delete.cu
// WRONG-FAILS: lab06 task3 mark_nodes and unlink_marked delete the marked nodes under every schedule
// WRONG-MESSAGE: race at delete_skip_one\.cu:[0-9]+
// WRONG-MESSAGE: Let only unmarked nodes write
// WRONG-MESSAGE: replay: build/bin/sim/lab06 delete --n 24 --divisor 3 --blocks [0-9]+ --threads [0-9]+
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

// Each unmarked node links past the run of marked nodes after it. Only unmarked nodes write, and
// each writes its own next; the nexts it reads are those of marked nodes, which nobody writes.
__global__ void unlink_marked(Pool pool, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int next = pool.next[i];
    if (next != kNull && pool.mark[next]) pool.next[i] = pool.next[next];
  }
}

}  // namespace lab06
