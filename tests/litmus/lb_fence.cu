// Litmus test lb_fence: load buffering with fences.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_lb_fence(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, cuda::thread_scope_device);
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      in.reg[0] = r0;
      break;
    }
    case 1: {
      const int r1 = ref<int>(in.at(1)).load(rlx);  // r1 = y
      cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, cuda::thread_scope_device);
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      in.reg[1] = r1;
      break;
    }
    default: stress(L);
  }
}

static const Test k_lb_fence{"lb_fence", 2, Placement::Cross, t_lb_fence,
                 {"r0", "r1"},
                 /*allowed=*/{},
                 /*forbidden=*/{"r0=1 r1=1"},
                 /*sc_outcomes=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"},
                 /*ptx_allowed=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"}};

LITMUS_TEST(k_lb_fence)
