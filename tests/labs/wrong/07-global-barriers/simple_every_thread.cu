// WRONG SOLUTION (lab 07, task 3): the lock-based barrier where every thread arrives: each one
// adds 1 to the counter and spins until it reaches gridDim.x * blockDim.x * round. It orders the
// rounds right, but with one atomic per thread per round (and every thread spinning on the
// counter) where the paper's barrier makes one per block.
// WRONG-REPLACES: gpu_barriers.cu
// WRONG-FAILS: lab07 task3 gpu_sync_simple orders every round under both memory models
// WRONG-MESSAGE: atomic operations for [0-9]+ blocks
// WRONG-MESSAGE: One thread of each block \(thread 0\) arrives for the whole block
// WRONG-FIX:   {\n    __threadfence();  // ... and they are visible to every block before our arrival is\n    atomicAdd(count, 1u);\n    const unsigned goal = gridDim.x * blockDim.x * round; =>   if (threadIdx.x == 0) {\n    __threadfence();  // ... and they are visible to every block before our arrival is\n    atomicAdd(count, 1u);\n    const unsigned goal = gridDim.x * round;
//
// Lab 07, tasks 3-6: global barriers inside one launch (seed 001, section V; seed 004, "Global
// Barrier"). Every block must be resident at once (task 7): a block that waits for one that never
// started waits forever.
//
// 3. gpu_sync_simple: the paper's lock-based barrier (Fig. 4): thread 0 of each block adds one to
//    a counter and spins until it reaches N x round (the goal grows by N per round, so the counter
//    is never reset), between two __syncthreads().
// 4. gpu_sync_tree: two levels: blocks count in their group's counter; the last of a group counts
//    in the top counter; everyone waits for the top.
// 5. gpu_sync_lockfree: the paper's lock-free barrier (Fig. 6): no atomics; block 0 collects every
//    block's arrival (Arrayin) and releases each (Arrayout).
// 6. gpu_sync_sense: a counter that the last block resets, and a flag whose value (sense) flips
//    every round.
//
// __threadfence() (section VII.E): the paper's barriers ran correctly without it on a GTX 280,
// but nothing in CUDA's memory model promises that; the relaxed memory model shows the run
// where it is missing (docs/memory-model.md).
#include "lab07_kernels.cuh"

namespace lab07 {

// ---- 3 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_simple(unsigned* count, unsigned round) {
  __syncthreads();  // every thread of the block has done its round's writes
  {
    __threadfence();  // ... and they are visible to every block before our arrival is
    atomicAdd(count, 1u);
    const unsigned goal = gridDim.x * blockDim.x * round;
    while (*(volatile unsigned*)count < goal) {
    }
    __threadfence();  // the other blocks' writes before their arrivals are visible to our reads
  }
  __syncthreads();  // no thread of the block leaves before thread 0 saw every block arrive
}

// ---- 4 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_tree(unsigned* groups, unsigned* top, unsigned round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned g = blockIdx.x / kTreeGroup;
    const unsigned ngroups = (gridDim.x + kTreeGroup - 1) / kTreeGroup;
    const unsigned size = gridDim.x - g * kTreeGroup < kTreeGroup ? gridDim.x - g * kTreeGroup : kTreeGroup;
    __threadfence();
    if (atomicAdd(&groups[g], 1u) == size * round - 1) {
      // The last of the group passes its group's arrivals up: a fence between what it saw and its
      // own arrival, so that the top level releases the whole group's writes, not only its own.
      __threadfence();
      atomicAdd(top, 1u);
    }
    while (*(volatile unsigned*)top < ngroups * round) {
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- 5 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_lockfree(unsigned* arrive, unsigned* depart, unsigned round) {
  const unsigned t = threadIdx.x, n = gridDim.x;
  __syncthreads();
  if (t == 0) {
    __threadfence();
    *(volatile unsigned*)&arrive[blockIdx.x] = round;
  }
  if (blockIdx.x == 0) {
    if (t < n) {
      while (*(volatile unsigned*)&arrive[t] != round) {
      }
      __threadfence();
    }
    __syncthreads();  // every block has arrived
    if (t < n) {
      __threadfence();
      *(volatile unsigned*)&depart[t] = round;
    }
  }
  if (t == 0) {
    while (*(volatile unsigned*)&depart[blockIdx.x] != round) {
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- 6 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_sense(unsigned* count, unsigned* sense, unsigned& my_sense) {
  __syncthreads();
  if (threadIdx.x == 0) {
    my_sense = 1u - my_sense;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      atomicExch(count, 0u);  // the last block: reset for the next round, then release everyone
      __threadfence();
      *(volatile unsigned*)sense = my_sense;
    } else {
      while (*(volatile unsigned*)sense != my_sense) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- provided: the exchange ----------------------------------------------------------------------
__global__ void exchange_gpu(Method method, const unsigned* in, unsigned* out, unsigned* slots, BarrierState st,
                             int rounds) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;  // thread t of the next block
  unsigned x = in[i];
  unsigned my_sense = 0;
  for (int r = 0; r < rounds; ++r) {
    unsigned* buf = slots + (r & 1) * n;
    buf[i] = x;
    switch (method) {
      case Method::simple: gpu_sync_simple(st.count, r + 1); break;
      case Method::tree: gpu_sync_tree(st.groups, st.count, r + 1); break;
      case Method::lockfree: gpu_sync_lockfree(st.arrive, st.depart, r + 1); break;
      case Method::sense: gpu_sync_sense(st.count, st.sense, my_sense); break;
      default: break;
    }
    x = exchange_step(x, buf[j], r);
  }
  out[i] = x;
}

}  // namespace lab07
