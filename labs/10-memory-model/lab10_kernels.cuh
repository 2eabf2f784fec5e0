// Lab 10 (the memory model): what the kernels of the lab share, and the kernels of the student
// files, declared for the harness. Provided; do not change the signatures (the harness and the
// graded tests launch these).
//
// A litmus kernel plays the threads ("roles") of one or more instances of a litmus test. Role r of
// an instance works on the instance's locations x, y (in.x(), in.y(), a cache line apart) and writes
// what it read to its registers r0..r3 (in.r(k)). Where the roles run:
//   across blocks: each role is thread 0 of a block of its own (the harness picks the blocks);
//   same block:    role r is thread 32 r of one block (a warp of its own), block = instance.
// A thread that plays no role (on a GPU: most blocks) calls stress(L), which loads and stores
// other memory so that the roles' accesses meet traffic (Alglave et al., ASPLOS 2015, sec. 4.3).
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

namespace lab10 {

constexpr int kLocations = 4;  // x, y, z, w of one instance
constexpr int kRegisters = 4;  // r0..r3 of one instance
constexpr int kSpacing = 32;   // ints between two locations

struct Litmus {
  int* mem;          // instances * kLocations * kSpacing ints, zero before the launch
  int* regs;         // instances * kRegisters ints
  const int* place;  // across blocks: per block, role * 2^20 + instance, or -1 (stress)
  int* stress;       // scratch memory for the stress blocks (null: no stress)
  int roles;
  int same_block;  // 1: role r is thread 32 r of block `instance`
};

struct Instance {
  int* loc;
  int* reg;
  __device__ int& x() const { return loc[0]; }
  __device__ int& y() const { return loc[kSpacing]; }
  __device__ int& r(int k) const { return reg[k]; }
};

// The role the calling thread plays (-1: none) and its instance.
__device__ inline int role_of(const Litmus& L, Instance* in) {
  int role, inst;
  if (L.same_block) {
    if (threadIdx.x % 32 != 0 || int(threadIdx.x / 32) >= L.roles) return -1;
    role = threadIdx.x / 32;
    inst = blockIdx.x;
  } else {
    const int p = L.place[blockIdx.x];
    if (p < 0 || threadIdx.x != 0) return -1;
    role = p >> 20;
    inst = p & 0xfffff;
  }
  in->loc = L.mem + size_t(inst) * kLocations * kSpacing;
  in->reg = L.regs + size_t(inst) * kRegisters;
  return role;
}

// What the blocks that play no role do on a GPU: load and store scratch memory for a while.
__device__ inline void stress(const Litmus& L) {
  if (!L.stress || L.same_block) return;
  volatile int* s = L.stress + (blockIdx.x % 64) * 64;
  for (int i = 0; i < 64; ++i) s[(threadIdx.x + i) % 64] += 1;
}

// Atomic views of an int at each scope (libcu++). A memory order names the synchronization:
// relaxed (none), acquire (a load), release (a store), seq_cst.
template <class T>
using block_ref = cuda::atomic_ref<T, cuda::thread_scope_block>;    // .cta: threads of one block
template <class T>
using device_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;  // .gpu: threads of one GPU
template <class T>
using system_ref = cuda::atomic_ref<T, cuda::thread_scope_system>;  // .sys: and the host, other GPUs
constexpr auto relaxed = cuda::std::memory_order_relaxed;
constexpr auto acquire = cuda::std::memory_order_acquire;
constexpr auto release = cuda::std::memory_order_release;
constexpr auto seq_cst = cuda::std::memory_order_seq_cst;

// ---- task 1 (provided, harness.cu): the litmus tests, relaxed accesses at .gpu scope ----------------
__global__ void litmus_mp(Litmus L);    // 0: x = 1; y = 1          1: r0 = y; r1 = x
__global__ void litmus_sb(Litmus L);    // 0: x = 1; r0 = y         1: y = 1; r1 = x
__global__ void litmus_lb(Litmus L);    // 0: r0 = x; y = 1         1: r1 = y; x = 1
__global__ void litmus_iriw(Litmus L);  // 0: x = 1  1: y = 1  2: r0 = x; r1 = y  3: r2 = y; r3 = x
__global__ void litmus_corr(Litmus L);  // 0: x = 1                 1: r0 = x; r1 = x
__global__ void litmus_2p2w(Litmus L);  // 0: x = 1; y = 2          1: y = 1; x = 2
// The rest of the pool that a student id draws from (README, "Your own six tests").
__global__ void litmus_s(Litmus L);     // 0: x = 2; y = 1          1: r0 = y; x = 1
__global__ void litmus_r(Litmus L);     // 0: x = 1; y = 1          1: y = 2; r0 = x
__global__ void litmus_wrc(Litmus L);   // 0: x = 1  1: r0 = x; y = 1  2: r1 = y; r2 = x
__global__ void litmus_cowr(Litmus L);  // 0: x = 1; r0 = x         1: x = 2
__global__ void litmus_corw(Litmus L);  // 0: r0 = x; x = 1         1: x = 2

// ---- task 2 (fences.cu): the same tests with the cheapest synchronization that forbids the weak
// outcome. The roles run in different blocks.
__global__ void mp_fixed(Litmus L);
__global__ void sb_fixed(Litmus L);
__global__ void lb_fixed(Litmus L);
__global__ void iriw_fixed(Litmus L);
__global__ void w2p2w_fixed(Litmus L);

// ---- task 3 (fences.cu): scopes. Message passing between two warps of one block (3a) and between
// two blocks (3b).
__global__ void mp_same_block(Litmus L);
__global__ void mp_cross_block(Litmus L);

// ---- task 4 (fences.cu): a hand-over that passes thousands of GPU runs. Block 0 writes
// data[0..n) and raises *flag; block 1 waits for the flag and writes the sum of data to *out.
__global__ void handoff(int* data, int n, int* flag, int* out);

// ---- task 5 (fences.cu): the publication patterns of labs 04, 05, 07 and 08, one thread a block.
// 5a (lab 04, last block done): block b writes partial[b] = 10 (b + 1), takes a ticket; the block
//    that takes the last ticket writes the sum of the partials to *out.
__global__ void last_block(int* partial, unsigned* ticket, int* out);
// 5b (lab 05, look-back): block b waits for flag[b - 1], reads sum[b - 1], writes
//    sum[b] = sum[b - 1] + b + 1 and raises flag[b] (block 0 starts with sum[0] = 1).
__global__ void look_back(int* sum, int* flag);
// 5c (lab 07, a global barrier): block b writes slot[b] = 100 + b, arrives at the counter barrier,
//    then reads its neighbour's slot into got[b] (neighbour: (b + 1) % gridDim.x).
__global__ void barrier_exchange(int* slot, unsigned* count, int* got);
// 5d (lab 08, a queue): block 0 puts items[i] = 7 i + 1 for i < n and after each raises *tail to
//    i + 1; block 1 takes them in order as *tail grows and writes them to got[i].
__global__ void queue_pass(int* items, int n, int* tail, int* got);

}  // namespace lab10
