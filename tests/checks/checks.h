// Helpers for the checker test programs in tests/checks/: the CUDA error checks and the verdict
// line (common/include/synclab/cuda_check.h), and a few device helpers (named barriers through
// inline PTX, a busy loop that delays a thread without synchronizing anything).
#pragma once

#include <synclab/cuda_check.h>

using synclab::verdict;

// Named barriers: `bar.sync id, count` waits until `count` threads (a multiple of 32) have
// arrived at barrier `id`; `bar.arrive id, count` counts the caller as arrived without waiting.
__device__ __forceinline__ void bar_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Burns `n` iterations of register arithmetic: a delay that orders nothing (no memory access, no
// synchronization), so that the round-robin scheduler runs a chosen thread's access later than
// another's. The result must be used, or the compiler drops the loop.
__device__ __forceinline__ unsigned busy(unsigned n, unsigned seed) {
  unsigned x = seed;
  for (unsigned i = 0; i < n; ++i) x = x * 1664525u + 1013904223u;
  return x;
}
