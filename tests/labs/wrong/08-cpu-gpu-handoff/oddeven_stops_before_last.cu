// WRONG SOLUTION (lab 08, task 4): play_turns counts its own turns but stops one short: v < last
// instead of v <= last, so the side of last's parity never plays it. Not the slides' race: last is
// missing under every schedule.
// WRONG-REPLACES: oddeven.cu
// WRONG-FAILS: lab08 task4 odd and even between two blocks print every number once where the slides' loops do not
// WRONG-MESSAGE: 2 was never printed
// WRONG-MESSAGE: up to and including last \(v <= last\)
// Lab 08, task 4: the slides' odd/even exercise (seed 004, "CPU-GPU Synchronization": print 0..10,
// the CPU the even numbers, the GPU the odd ones). One counter says whose turn it is; each side waits
// for a number of its parity, prints it, and hands the turn over by adding one.
#include "lab08_kernels.cuh"

__host__ __device__ void play_turns(int* counter, int* printed, int parity, int last) {
  // TODO(4): for each of this side's numbers v (parity, parity + 2, ... up to last): wait until the
  // counter is v (an acquire load at system scope; call keep_waiting() in the loop and return when
  // it says to give up), print_number(printed, v, last, 1 + parity), then hand over: store v + 1
  // with a release store. Decide when to stop from your own numbers, not from the counter: the
  // other side may have moved it since (about 8 lines).
  SystemAtomic<int> turn(*counter);
  for (int v = parity; v < last; v += 2) {
    while (turn.load(cuda::memory_order_acquire) != v)
      if (!keep_waiting()) return;
    print_number(printed, v, last, 1 + parity);
    turn.store(v + 1, cuda::memory_order_release);
  }
}

// ---- provided: the kernels that play (do not edit) ------------------------------------------------
__global__ void odd_even_blocks(int* counter, int* printed, int last) {
  if (threadIdx.x == 0 && blockIdx.x < 2) play_turns(counter, printed, int(blockIdx.x), last);
}

__global__ void odd_side(int* counter, int* printed, int last) {
  if (blockIdx.x == 0 && threadIdx.x == 0) play_turns(counter, printed, 1, last);
}
