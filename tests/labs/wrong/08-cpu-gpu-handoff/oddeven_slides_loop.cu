// WRONG SOLUTION (lab 08, task 4): the slides' loop. Each side waits for a number of its parity,
// prints it, hands the turn over, and goes on while the shared counter is below last. After the even
// side hands over the last odd number, the odd side can print it and move the counter to last
// before the even side re-reads it for its loop test: then both stop, and last is never printed.
// WRONG-REPLACES: oddeven.cu
// WRONG-FAILS: lab08 task4 odd and even between two blocks print every number once where the slides' loops do not
// WRONG-MESSAGE: 2 was never printed
// WRONG-MESSAGE: decide when to stop from those numbers, not by re-reading
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
  do {
    while (turn.load(cuda::memory_order_acquire) % 2 != parity)
      if (!keep_waiting()) return;
    const int v = turn.load(cuda::memory_order_relaxed);
    print_number(printed, v, last, 1 + parity);
    turn.store(v + 1, cuda::memory_order_release);
  } while (turn.load(cuda::memory_order_acquire) < last);  // BUG: the other side may have moved it
}

// ---- provided: the kernels that play (do not edit) ------------------------------------------------
__global__ void odd_even_blocks(int* counter, int* printed, int last) {
  if (threadIdx.x == 0 && blockIdx.x < 2) play_turns(counter, printed, int(blockIdx.x), last);
}

__global__ void odd_side(int* counter, int* printed, int last) {
  if (blockIdx.x == 0 && threadIdx.x == 0) play_turns(counter, printed, 1, last);
}
