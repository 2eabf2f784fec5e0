// Lab 09, task 4: the 16-warp validation kernel's tiny-lock and flag schemes (README.md). The
// kernel, the launcher and the five other schemes are in chain_kernel.cuh (read them first).
#include "chain_kernel.cuh"

// ---- task 4a: tiny_lock, the paper's Listing 13 ------------------------------------------------------
// Every thread holds the lock bit of the word it will write (A[tid + 32]) from the start; its
// consumer, thread tid + 32, gets that bit once the word is written.
__device__ void tiny_lock_setup(ChainShared& s, int tid) {
  // TODO(4a) take the bit of your own output word (about 1 line)
}

__device__ void tiny_lock_hop(ChainShared& s, int tid, int wid) {
  // TODO(4a) wait for your input's bit (wid > 0), compute A[tid + 32], release both (about 4 lines)
}

// ---- task 4b: one flag per warp, release/acquire -------------------------------------------------------
__device__ void flag_setup(ChainShared& s, int tid) {
  // TODO(4b) every warp's flag down (about 1 line)
}

__device__ void flag_hop(ChainShared& s, int tid, int wid) {
  // TODO(4b) wait (acquire) for warp wid - 1's flag, compute A[tid + 32], then raise your warp's
  // flag (release) once all 32 lanes have written (about 5 lines)
}

// ---- task 4's questions (4q) ---------------------------------------------------------------------------
// TODO(4q): answer question 3 of the README (task 4) in the table below: replace each "?" with one
// word. Text after # is a comment; your ranking and your reasons may go there too (not graded).
const char* task4_answers_text() {
  return R"(
# question      answer   (text after # is a comment)
fastest         ?        # the scheme with the fewest cycles per hop on the H200 (README, task 4's table)
biggest_drop    ?        # the scheme whose speed against atom_lock fell most from Fermi (the paper) to the H200
why             ?        # why it fell: emulated (no lock unit since Fermi), divergence or scheduling
)";
}
