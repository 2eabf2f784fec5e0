// Litmus test sb_fence: store buffering with a sequentially consistent fence in each thread.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_sb_fence(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
      const int r0 = ref<int>(in.at(1)).load(rlx);  // r0 = y
      in.reg[0] = r0;
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
      const int r1 = ref<int>(in.at(0)).load(rlx);  // r1 = x
      in.reg[1] = r1;
      break;
    }
    default: stress(L);
  }
}

static const Test k_sb_fence{"sb_fence", 2, Placement::Cross, t_sb_fence,
                 {"r0", "r1"},
                 /*allowed=*/{},
                 /*forbidden=*/{"r0=0 r1=0"},
                 /*sc_outcomes=*/{"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"},
                 /*ptx_allowed=*/{"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"}};

LITMUS_TEST(k_sb_fence)
