// Litmus test coww: coherence of write-write: a thread's later store to a location wins.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_coww(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      ref<int>(in.at(0)).store(2, rlx);  // x = 2
      break;
    }
    case 1: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      in.reg[0] = r0;
      break;
    }
    default: stress(L);
  }
}

static const Test k_coww{"coww", 2, Placement::Cross, t_coww,
                 {"x"},
                 /*allowed=*/{},
                 /*forbidden=*/{"x=1"},
                 /*sc_outcomes=*/{"x=2"},
                 /*ptx_allowed=*/{"x=2"}};

LITMUS_TEST(k_coww)
