// Lab 09: the Fermi lock unit, emulated (provided; students use it, they do not edit it).
//
// Li, van den Braak, Corporaal and Kumar (ICS'15, seeds 000/002, section 4) use a lock table that
// Fermi keeps beside shared memory: 1024 lock bits per SM, reached by two instructions, LDSLK (load
// a shared word and try its lock bit in one step) and STSUL (store a shared word and release its
// bit). The table is indexed by address bits 2-11 of the shared-memory word, so two words 4096
// bytes apart share one bit: the paper's "alias". Today's GPUs have no such instructions; this
// header keeps the same table in 32 words of shared memory (1024 bits), with the same aliasing, so
// that the paper's protocols and both of its deadlocks run here, on the simulator and on a GPU:
//
//   __shared__ TinyLockTable locks;         // one per block, like the SM's table
//   tl_init(locks);                         // every thread of the block calls it (it syncs)
//   if (tl_try_lock(locks, &x)) { ...; tl_unlock(locks, &x); }   // one try, never waits
//   tl_lock(locks, &x); ...; tl_unlock(locks, &x);                 // waits (see the warnings)
//
// Warnings (the lab's tasks 2 and 3):
//  - SIMD deadlock (paper, section 4.4.1): lanes of ONE warp waiting in tl_lock for one bit. Under
//    the pre-Volta `lockstep` model the lane that got the bit waits at the loop's reconvergence
//    point for its warp-mates, which spin on that bit for ever.
//  - Alias deadlock (section 4.4.2): a thread that holds the bit of `a` and waits in tl_lock for
//    `b` whose bit is the same (tl_bit(a) == tl_bit(b)) waits for itself.
//
// A LockLog, when given, records who holds each bit and what each thread waits for, so that the
// harness can name the bit, its holder and the addresses behind a stuck launch (the tests print it).
#pragma once

#include <cstdint>

// 1024 lock bits, as in the paper's table: bit b is bit (b % 32) of word[b / 32].
struct TinyLockTable {
  unsigned word[32];
};

constexpr int kLockBits = 1024;
constexpr int kLogThreads = 1024;  // threads a LockLog can follow (one block)

// Who holds which bit (global memory; written only while the bit is held, or by the waiter itself).
struct LockLog {
  int holder[kLockBits];                       // thread index in the block, -1: free
  unsigned long long held_for[kLockBits];      // the address the holder locked it for
  int wants_bit[kLogThreads];                  // the bit a thread waits for in tl_lock, -1: none
  unsigned long long wants_addr[kLogThreads];  // the address it waits for
  unsigned long long base;                     // the kernel's locked array (messages name elements)
  // On a GPU nothing reports a deadlock: with patience > 0, a thread that has waited that many
  // clock64() cycles in tl_lock gives up (it goes on WITHOUT the bit, so the kernel ends) and the
  // first one records what it saw. 0 (the simulator): wait for ever; the simulator reports it.
  long long patience;
  int gave_up;  // 1 once a thread gave up
  int gave_up_tid, gave_up_bit, gave_up_holder;
  unsigned long long gave_up_wanted, gave_up_held_for;
};

// The paper's mapping: address bits 2-11 pick the lock bit (words 4096 bytes apart alias).
__host__ __device__ inline unsigned tl_bit(const void* p) {
  return unsigned(reinterpret_cast<uintptr_t>(p) >> 2) & (kLockBits - 1);
}

// Every thread of the block: all bits free, then a block barrier.
__device__ inline void tl_init(TinyLockTable& t) {
  for (int i = int(threadIdx.x); i < 32; i += int(blockDim.x)) t.word[i] = 0;
  __syncthreads();
}

__device__ inline unsigned tl_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// One try at the bit of p (LDSLK): true when this thread now holds it. Acquire: what the last
// holder wrote before tl_unlock is visible after a successful try.
__device__ inline bool tl_try_lock(TinyLockTable& t, const void* p, LockLog* log = nullptr) {
  const unsigned b = tl_bit(p), mask = 1u << (b & 31);
  const bool got = !(atomicOr(&t.word[b >> 5], mask) & mask);
  if (got) {
    __threadfence_block();
    if (log) {
      log->holder[b] = int(tl_thread());
      log->held_for[b] = reinterpret_cast<uintptr_t>(p);
    }
  }
  return got;
}

// Releases the bit of p (STSUL): release, so the next holder sees this thread's writes.
__device__ inline void tl_unlock(TinyLockTable& t, const void* p, LockLog* log = nullptr) {
  const unsigned b = tl_bit(p);
  if (log) log->holder[b] = -1;
  __threadfence_block();
  atomicAnd(&t.word[b >> 5], ~(1u << (b & 31)));
}

// Waits until this thread holds the bit of p. Never call it where lanes of one warp may want one
// bit (SIMD deadlock under lockstep), nor for b while holding a's bit when tl_bit(a) == tl_bit(b).
__device__ inline void tl_lock(TinyLockTable& t, const void* p, LockLog* log = nullptr) {
  if (log) {
    log->wants_bit[tl_thread()] = int(tl_bit(p));
    log->wants_addr[tl_thread()] = reinterpret_cast<uintptr_t>(p);
  }
  if (log && log->patience > 0) {
    const long long start = clock64();
    while (!tl_try_lock(t, p, log)) {
      if (clock64() - start > log->patience) {  // stuck: note it once, then go on without the bit
        const int b = int(tl_bit(p));
        if (atomicCAS(&log->gave_up, 0, 1) == 0) {
          log->gave_up_tid = int(tl_thread()), log->gave_up_bit = b, log->gave_up_holder = log->holder[b];
          log->gave_up_wanted = reinterpret_cast<uintptr_t>(p), log->gave_up_held_for = log->held_for[b];
          __threadfence_system();
        }
        return;
      }
    }
  } else {
    while (!tl_try_lock(t, p, log)) {
    }
  }
  if (log) log->wants_bit[tl_thread()] = -1;
}

// True when the bit of p is set (held, or a full channel slot). A look that orders nothing, made with
// an atomic (atomicOr of 0): each call is one atomic operation.
__device__ inline bool tl_is_set(TinyLockTable& t, const void* p) {
  const unsigned b = tl_bit(p);
  return (atomicOr(&t.word[b >> 5], 0u) >> (b & 31)) & 1u;
}

// Sets / clears the bit of p with no test (a channel's "full" mark), with release ordering.
__device__ inline void tl_set(TinyLockTable& t, const void* p) {
  const unsigned b = tl_bit(p);
  __threadfence_block();
  atomicOr(&t.word[b >> 5], 1u << (b & 31));
}
__device__ inline void tl_clear(TinyLockTable& t, const void* p) {
  const unsigned b = tl_bit(p);
  __threadfence_block();
  atomicAnd(&t.word[b >> 5], ~(1u << (b & 31)));
}

// Acquire load and release store at block scope (PTX ld.acquire.cta / st.release.cta): a flag
// handed from one warp to another of the same block.
__device__ inline int ld_acquire_cta(const int* p) {
  int v;
  asm volatile("ld.acquire.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void st_release_cta(int* p, int v) {
  asm volatile("st.release.cta.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
