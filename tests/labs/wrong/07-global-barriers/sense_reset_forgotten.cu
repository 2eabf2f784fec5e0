// WRONG SOLUTION (lab 07, task 6): the sense-reversing barrier's last block flips the sense but
// never resets the counter. The first round works; in the second the counter goes on from
// gridDim.x, no atomicAdd returns gridDim.x - 1 again, the sense never flips back, and every block
// waits for ever.
// WRONG-REPLACES: gpu_barriers.cu
// WRONG-FAILS: lab07 task6 gpu_sync_sense orders every round under both memory models
// WRONG-MESSAGE: hung \(spinning\)
// WRONG-MESSAGE: sense flip
// WRONG-MESSAGE: resets \*count to 0
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
  // TODO(3): the paper's lock-based barrier (seed 001, Fig. 4). A __syncthreads(); thread 0 makes
  // the block's writes visible (__threadfence()), adds 1 to *count, spins (reading *count through
  // a volatile pointer) until it reaches gridDim.x * round, and fences again; a __syncthreads().
  // (about 10 lines)
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    const unsigned goal = gridDim.x * round;
    while (*(volatile unsigned*)count < goal) {
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- 4 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_tree(unsigned* groups, unsigned* top, unsigned round) {
  // TODO(4): two levels. Block b counts in groups[b / kTreeGroup]; the block that brings its group's
  // counter to size * round (size: the blocks of its group) adds 1 to *top; every block's thread 0
  // spins until *top reaches (the number of groups) * round. Barriers and fences as in TODO(3),
  // and one more: the block that passes its group's arrivals up fences before it adds to *top.
  // (about 18 lines)
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned g = blockIdx.x / kTreeGroup;
    const unsigned ngroups = (gridDim.x + kTreeGroup - 1) / kTreeGroup;
    const unsigned first = g * kTreeGroup;
    const unsigned size = gridDim.x - first < kTreeGroup ? gridDim.x - first : kTreeGroup;
    __threadfence();
    if (atomicAdd(&groups[g], 1u) == size * round - 1) {
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
  // TODO(5): the paper's lock-free barrier (seed 001, Fig. 6), block 0 as the master. Thread 0 of
  // every block writes round to arrive[blockIdx.x]; in block 0, thread t < gridDim.x spins until
  // arrive[t] == round, then (after a __syncthreads()) writes round to depart[t]; thread 0 of every
  // block spins until depart[blockIdx.x] == round. Volatile accesses, fences, and the
  // __syncthreads() around it all as in TODO(3). (about 22 lines)
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    ((volatile unsigned*)arrive)[blockIdx.x] = round;
  }
  if (blockIdx.x == 0) {
    if (threadIdx.x < gridDim.x) {
      while (((volatile unsigned*)arrive)[threadIdx.x] != round) {
      }
      __threadfence();
    }
    __syncthreads();
    if (threadIdx.x < gridDim.x) {
      __threadfence();
      ((volatile unsigned*)depart)[threadIdx.x] = round;
    }
  }
  if (threadIdx.x == 0) {
    while (((volatile unsigned*)depart)[blockIdx.x] != round) {
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- 6 ------------------------------------------------------------------------------------------
__device__ void gpu_sync_sense(unsigned* count, unsigned* sense, unsigned& my_sense) {
  // TODO(6): a sense-reversing barrier. Thread 0 flips my_sense, fences, and adds 1 to *count; the
  // block that brings it to gridDim.x resets *count to 0 (atomicExch), fences, and writes my_sense
  // to *sense; the others spin until *sense == my_sense. Barriers and fences as in TODO(3).
  // (about 16 lines)
  __syncthreads();
  if (threadIdx.x == 0) {
    my_sense = 1 - my_sense;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
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
