// Litmus test mp_fence_block_cross: block-scope fences between threads of different blocks order nothing.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_mp_fence_block_cross(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_block);
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      break;
    }
    case 1: {
      const int r0 = ref<int>(in.at(1)).load(rlx);  // r0 = y
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_block);
      const int r1 = ref<int>(in.at(0)).load(rlx);  // r1 = x
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    default: stress(L);
  }
}

static const Test k_mp_fence_block_cross{"mp_fence_block_cross", 2, Placement::Cross, t_mp_fence_block_cross,
                 {"r0", "r1"},
                 /*allowed=*/{"r0=1 r1=0"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"}};

LITMUS_TEST(k_mp_fence_block_cross)
