// Lab 09, task 4: the 16-warp validation kernel (provided; chain.cu includes it once). The paper's
// Listing 10 parallelized over 16 warps (section 5): warp w computes A[32w + 32 + lane] from what
// warp w - 1 wrote, so the warps hand a token along the chain, 15 hops. Five schemes are the
// paper's (Listings 11-13 and section 4.5), two are today's: Hopper's shared-memory mbarrier and a
// release/acquire flag. The student writes tiny_lock and flag (chain.cu); the others are here.
#pragma once

#include "lab09_kernels.cuh"

// ---- atom_lock (Listing 11): one atomic spin lock per thread, held by its producer -------------
__device__ inline void atom_lock_setup(ChainShared& s, int tid) { s.mutex[tid] = 1; }
__device__ inline void atom_lock_hop(ChainShared& s, int tid, int wid) {
  if (wid > 0) {
    while (atomicCAS(&s.mutex[tid - 32], 0, 1) != 0) {
    }
    __threadfence_block();
  }
  s.A[tid + 32] = s.A[tid] + tid;
  __threadfence_block();
  atomicExch(&s.mutex[tid], 0);
  if (wid > 0) atomicExch(&s.mutex[tid - 32], 0);
}

// ---- warp_barr (Listing 12): named barriers, bar.sync by the consumer, bar.arrive by the producer
// Barrier 1 + w joins warp w (arrive) and warp w + 1 (sync): 64 threads. Barrier 0 is __syncthreads.
__device__ inline void warp_barr_setup(ChainShared&, int) {}
__device__ inline void warp_barr_hop(ChainShared& s, int tid, int wid) {
  if (wid > 0) asm volatile("bar.sync %0, %1;" ::"r"(wid), "r"(64) : "memory");
  s.A[tid + 32] = s.A[tid] + tid;
  if (wid + 1 < kChainWarps) asm volatile("bar.arrive %0, %1;" ::"r"(wid + 1), "r"(64) : "memory");
}

// ---- shrd_lock: one atomic spin lock per warp, taken and released by lane 0 ---------------------
__device__ inline void shrd_lock_setup(ChainShared& s, int tid) {
  if (tid % 32 == 0) s.mutex[tid / 32] = 1;
}
__device__ inline void shrd_lock_hop(ChainShared& s, int tid, int wid) {
  const int lane = tid % 32;
  if (wid > 0) {
    if (lane == 0) {
      while (atomicCAS(&s.mutex[wid - 1], 0, 1) != 0) {
      }
      __threadfence_block();
    }
    __syncwarp();
  }
  s.A[tid + 32] = s.A[tid] + tid;
  __syncwarp();
  if (lane == 0) {
    __threadfence_block();
    atomicExch(&s.mutex[wid], 0);
  }
}

// ---- warp_vote (section 4.5): one lock bit per warp; every lane tries, a vote says whether one got it
__device__ inline void warp_vote_setup(ChainShared& s, int tid) {
  if (tid % 32 == 0) tl_try_lock(s.locks, &s.A[tid + 32]);  // the producer's bit, free before
}
__device__ inline void warp_vote_hop(ChainShared& s, int tid, int wid) {
  const int lane = tid % 32;
  bool mine = false;
  if (wid > 0) {
    bool any = false;
    do {
      mine = tl_try_lock(s.locks, &s.A[32 * wid]);
      any = __any_sync(0xffffffffu, mine);
    } while (!any);
  }
  // The vote tells the lanes that one of them acquired, but orders no memory (PTX gives vote.sync
  // none): __syncwarp() passes the winner's acquire on to its warp-mates before they read A.
  __syncwarp();
  s.A[tid + 32] = s.A[tid] + tid;
  __syncwarp();
  if (lane == 0) tl_unlock(s.locks, &s.A[32 * wid + 32]);
  if (mine) tl_unlock(s.locks, &s.A[32 * wid]);  // finalize: the predecessor's bit, free again
}

// ---- mbarrier (Hopper): one shared-memory mbarrier per warp, 32 arrivals, phase 0 -------------------
// (SYNCLAB_MBAR_WAIT: try_wait, or test_wait on sm_80; lab09_kernels.cuh)
__device__ inline unsigned shared_address(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
__device__ inline void mbarrier_setup(ChainShared& s, int tid) {
  if (tid < kChainWarps)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(shared_address(&s.mbar[tid])), "r"(32) : "memory");
}
__device__ inline void mbarrier_hop(ChainShared& s, int tid, int wid) {
  if (wid > 0) {
    const unsigned bar = shared_address(&s.mbar[wid - 1]);
    unsigned done = 0;
    do {
      asm volatile("{\n\t.reg .pred p;\n\t" SYNCLAB_MBAR_WAIT
                   ".parity.shared.b64 p, [%1], %2;\n\t"
                   "selp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done)
                   : "r"(bar), "r"(0)
                   : "memory");
    } while (!done);
  }
  s.A[tid + 32] = s.A[tid] + tid;
  [[maybe_unused]] unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(shared_address(&s.mbar[wid])) : "memory");
}

// ---- the kernel -------------------------------------------------------------------------------
// Setup (every thread), block barrier, clock, then the hop; warp 15's lane 0 records the cycles.
template <Scheme S>
__global__ void chain_kernel(const int* input, int* out, long long* cycles) {
  __shared__ ChainShared chain;
  const int tid = int(threadIdx.x), wid = tid / 32;
  if (tid < 32) chain.A[tid] = input[tid];
  tl_init(chain.locks);
  if constexpr (S == Scheme::atom_lock) atom_lock_setup(chain, tid);
  if constexpr (S == Scheme::warp_barr) warp_barr_setup(chain, tid);
  if constexpr (S == Scheme::shrd_lock) shrd_lock_setup(chain, tid);
  if constexpr (S == Scheme::tiny_lock) tiny_lock_setup(chain, tid);
  if constexpr (S == Scheme::warp_vote) warp_vote_setup(chain, tid);
  if constexpr (S == Scheme::mbarrier) mbarrier_setup(chain, tid);
  if constexpr (S == Scheme::flag) flag_setup(chain, tid);
  __syncthreads();
  const long long t0 = clock64();
  if constexpr (S == Scheme::atom_lock) atom_lock_hop(chain, tid, wid);
  if constexpr (S == Scheme::warp_barr) warp_barr_hop(chain, tid, wid);
  if constexpr (S == Scheme::shrd_lock) shrd_lock_hop(chain, tid, wid);
  if constexpr (S == Scheme::tiny_lock) tiny_lock_hop(chain, tid, wid);
  if constexpr (S == Scheme::warp_vote) warp_vote_hop(chain, tid, wid);
  if constexpr (S == Scheme::mbarrier) mbarrier_hop(chain, tid, wid);
  if constexpr (S == Scheme::flag) flag_hop(chain, tid, wid);
  if (tid == kChainThreads - 32) cycles[0] = clock64() - t0;
  __syncthreads();
  out[tid] = chain.A[tid + 32];
}

void launch_chain(Scheme s, const int* input, int* out, long long* cycles) {
  switch (s) {
    case Scheme::atom_lock: chain_kernel<Scheme::atom_lock><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::warp_barr: chain_kernel<Scheme::warp_barr><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::shrd_lock: chain_kernel<Scheme::shrd_lock><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::tiny_lock: chain_kernel<Scheme::tiny_lock><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::warp_vote: chain_kernel<Scheme::warp_vote><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::mbarrier: chain_kernel<Scheme::mbarrier><<<1, kChainThreads>>>(input, out, cycles); break;
    case Scheme::flag: chain_kernel<Scheme::flag><<<1, kChainThreads>>>(input, out, cycles); break;
  }
}

const void* chain_kernel_address(Scheme s) {
  switch (s) {
    case Scheme::atom_lock: return reinterpret_cast<const void*>(chain_kernel<Scheme::atom_lock>);
    case Scheme::warp_barr: return reinterpret_cast<const void*>(chain_kernel<Scheme::warp_barr>);
    case Scheme::shrd_lock: return reinterpret_cast<const void*>(chain_kernel<Scheme::shrd_lock>);
    case Scheme::tiny_lock: return reinterpret_cast<const void*>(chain_kernel<Scheme::tiny_lock>);
    case Scheme::warp_vote: return reinterpret_cast<const void*>(chain_kernel<Scheme::warp_vote>);
    case Scheme::mbarrier: return reinterpret_cast<const void*>(chain_kernel<Scheme::mbarrier>);
    case Scheme::flag: return reinterpret_cast<const void*>(chain_kernel<Scheme::flag>);
  }
  return nullptr;
}
