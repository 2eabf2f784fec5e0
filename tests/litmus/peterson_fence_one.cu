// Litmus test peterson_fence_one: Peterson's doorway with one fence.sc between the victim store and the flag load: both still enter (the victim stores land in coherence order against their order in time).
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_peterson_fence_one(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rel);  // x = 1
      ref<int>(in.at(2)).store(0, rel);  // z = 0
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
      const int r0 = ref<int>(in.at(1)).load(acq);  // r0 = y
      const int r1 = ref<int>(in.at(2)).load(acq);  // r1 = z
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, rel);  // y = 1
      ref<int>(in.at(2)).store(1, rel);  // z = 1
      cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
      const int r2 = ref<int>(in.at(0)).load(acq);  // r2 = x
      const int r3 = ref<int>(in.at(2)).load(acq);  // r3 = z
      in.reg[2] = r2;
      in.reg[3] = r3;
      break;
    }
    default: stress(L);
  }
}

static const Test k_peterson_fence_one{"peterson_fence_one", 2, Placement::Cross, t_peterson_fence_one,
                 {"r0", "r1", "r2", "r3", "z"},
                 /*allowed=*/{"r0=0 r1=0 r2=1 r3=0 z=0"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0 r2=1 r3=1 z=1", "r0=0 r1=1 r2=1 r3=1 z=1", "r0=1 r1=0 r2=0 r3=0 z=0", "r0=1 r1=0 r2=0 r3=1 z=0", "r0=1 r1=0 r2=1 r3=0 z=0", "r0=1 r1=0 r2=1 r3=1 z=0", "r0=1 r1=0 r2=1 r3=1 z=1", "r0=1 r1=1 r2=1 r3=1 z=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0 r2=1 r3=0 z=0", "r0=0 r1=0 r2=1 r3=1 z=1", "r0=0 r1=1 r2=1 r3=1 z=1", "r0=1 r1=0 r2=0 r3=0 z=0", "r0=1 r1=0 r2=0 r3=1 z=0", "r0=1 r1=0 r2=1 r3=0 z=0", "r0=1 r1=0 r2=1 r3=1 z=0", "r0=1 r1=0 r2=1 r3=1 z=1", "r0=1 r1=1 r2=0 r3=1 z=1", "r0=1 r1=1 r2=1 r3=1 z=1"}};

LITMUS_TEST(k_peterson_fence_one)
