// Litmus test iriw: independent reads of independent writes: two readers see the writes in opposite orders.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_iriw(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      break;
    }
    case 2: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      const int r1 = ref<int>(in.at(1)).load(rlx);  // r1 = y
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    case 3: {
      const int r2 = ref<int>(in.at(1)).load(rlx);  // r2 = y
      const int r3 = ref<int>(in.at(0)).load(rlx);  // r3 = x
      in.reg[2] = r2;
      in.reg[3] = r3;
      break;
    }
    default: stress(L);
  }
}

static const Test k_iriw{"iriw", 4, Placement::Cross, t_iriw,
                 {"r0", "r1", "r2", "r3"},
                 /*allowed=*/{"r0=1 r1=0 r2=1 r3=0"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0 r2=0 r3=0", "r0=0 r1=0 r2=0 r3=1", "r0=0 r1=0 r2=1 r3=0", "r0=0 r1=0 r2=1 r3=1", "r0=0 r1=1 r2=0 r3=0", "r0=0 r1=1 r2=0 r3=1", "r0=0 r1=1 r2=1 r3=0", "r0=0 r1=1 r2=1 r3=1", "r0=1 r1=0 r2=0 r3=0", "r0=1 r1=0 r2=0 r3=1", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=0 r3=0", "r0=1 r1=1 r2=0 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0 r2=0 r3=0", "r0=0 r1=0 r2=0 r3=1", "r0=0 r1=0 r2=1 r3=0", "r0=0 r1=0 r2=1 r3=1", "r0=0 r1=1 r2=0 r3=0", "r0=0 r1=1 r2=0 r3=1", "r0=0 r1=1 r2=1 r3=0", "r0=0 r1=1 r2=1 r3=1", "r0=1 r1=0 r2=0 r3=0", "r0=1 r1=0 r2=0 r3=1", "r0=1 r1=0 r2=1 r3=0", "r0=1 r1=0 r2=1 r3=1", "r0=1 r1=1 r2=0 r3=0", "r0=1 r1=1 r2=0 r3=1", "r0=1 r1=1 r2=1 r3=0", "r0=1 r1=1 r2=1 r3=1"}};

LITMUS_TEST(k_iriw)
