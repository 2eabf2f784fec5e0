// Lab 03, task 1: a spin lock made of atomicCAS (seed 004, slides "Lock using atomicCAS"; seed 000,
// section 4.4.1 "SIMD deadlock" and Listing 7).
//
// 1a. Predict which launches of the provided count_naive finish, under each warp model.
// 1b. Write try_lock and unlock.
// 1c. Write count_locked: count_naive's job with a lock that is correct within one warp, across
//     warps and across blocks, under both warp models.
#include <string>

#include "lab03.h"
#include "lab03_kernels.cuh"

namespace lab03 {

// Provided. The lock as a CPU programmer writes it: spin until the CAS wins, then the critical
// section, then the unlock. The fences are right; the shape of the loop is the problem.
__global__ void count_naive(Counters c, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    int old;
    do {
      old = atomicCAS(c.lock, 0, 1);
    } while (old != 0);
    __threadfence();
    *c.counter = *c.counter + 1;
    *c.sections = *c.sections + 1;
    __threadfence();
    atomicExch(c.lock, 0);
  }
}

// ---- 1a: your prediction ------------------------------------------------------------------------
// Does count_naive<<<blocks, threads>>> (rounds = 1) always finish under `model` ("its": Volta and
// later; "lockstep": before Volta)? true: it finishes under every schedule; false: it never does.
bool predicted_naive_finishes(const std::string& model, int blocks, int threads) {
  // TODO(1a): decide from the model and from how many lanes of one warp compete for the lock
  // (about 3 lines)
  (void)model;
  (void)blocks;
  (void)threads;
  return false;
}

// ---- 1b: the lock primitives ------------------------------------------------------------------
// One attempt to take the lock: true when this thread now holds it. A holder must see everything
// the previous holder wrote in its critical section.
__device__ bool try_lock(int* lock) {
  // TODO(1b): one atomicCAS, and a fence when it won (about 4 lines)
  (void)lock;
  return false;
}

// Releases the lock: everything written in the critical section must be visible to the next
// holder before the lock looks free.
__device__ void unlock(int* lock) {
  // TODO(1b): a fence, then an atomic store of 0 (about 2 lines)
  (void)lock;
}

// ---- 1c: the lock that works inside a warp --------------------------------------------------------
__global__ void count_locked(Counters c, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    // TODO(1c): run the two lines below with the lock held, using try_lock and unlock, so that
    // a lane that wins releases the lock before its warp can reconverge (about 7 lines)
    *c.counter = *c.counter + 1;
    *c.sections = *c.sections + 1;
  }
}

}  // namespace lab03
