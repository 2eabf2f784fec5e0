// DESIGN-REPLACES: own_barrier.cu
// DESIGN-PASSES: lab07 task10 own_grid_barrier keeps its contract over two launches on one state under both warp and memory models
// DESIGN-PASSES: lab07 task10 own_grid_barrier holds more blocks than threads per block (40 blocks of 32 threads)
// Lab 07, task 10: a second design that meets the contract (the reference solution's is a central
// counter): a combining tree. Blocks arrive at one of up to kGroups group counters (block b at
// b mod groups), so that fewer blocks contend on each word; the last block of a group resets its
// group's counter and arrives at the top counter; the last at the top resets it and moves the
// generation on, which every other block's thread 0 waits for. Every counter is back at 0 after a
// round, and nothing depends on `round`, so a second launch on the same state works as the first.
// At most two atomics per block and round: its group's, and the top's for the last of a group.
//
// state[0]: the generation; state[1]: the top counter; state[2 ..]: the group counters.
#include "lab07_kernels.cuh"

namespace lab07 {

constexpr unsigned kGroups = kOwnWords - 2;

__device__ void own_grid_barrier(unsigned* state, unsigned round) {
  (void)round;
  volatile unsigned* generation = &state[0];
  unsigned* top = &state[1];
  unsigned* groups = &state[2];
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned n = gridDim.x;
    const unsigned used = n < kGroups ? n : kGroups;      // groups in use
    const unsigned g = blockIdx.x % used;                 // this block's group
    const unsigned size = (n - g + used - 1) / used;      // the blocks b < n with b % used == g
    const unsigned mine = *generation;
    bool released = false;
    __threadfence();
    if (atomicAdd(&groups[g], 1u) == size - 1) {
      // The group's last: pass the group's arrivals (and their writes) up with its own.
      __threadfence();
      *(volatile unsigned*)&groups[g] = 0;
      __threadfence();
      if (atomicAdd(top, 1u) == used - 1) {
        __threadfence();
        *(volatile unsigned*)top = 0;
        __threadfence();
        *generation = mine + 1;
        released = true;
      }
    }
    if (!released) {
      while (*generation == mine) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// ---- provided: the exchange ----------------------------------------------------------------------
__global__ void exchange_own(const unsigned* in, unsigned* out, unsigned* slots, unsigned* state, int rounds) {
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;  // thread t of the next block
  unsigned x = in[i];
  for (int r = 0; r < rounds; ++r) {
    unsigned* buf = slots + (r & 1) * n;
    buf[i] = x;
    own_grid_barrier(state, r + 1);
    x = exchange_step(x, buf[j], r);
  }
  out[i] = x;
}

}  // namespace lab07
