// Litmus test cowr: coherence of write-read: a thread reads its own store or a newer one.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_cowr(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      in.reg[0] = r0;
      break;
    }
    case 1: {
      ref<int>(in.at(0)).store(2, rlx);  // x = 2
      break;
    }
    default: stress(L);
  }
}

static const Test k_cowr{"cowr", 2, Placement::Cross, t_cowr,
                 {"r0", "x"},
                 /*allowed=*/{},
                 /*forbidden=*/{"r0=0 x=1", "r0=0 x=2", "r0=2 x=1"},
                 /*sc_outcomes=*/{"r0=1 x=1", "r0=1 x=2", "r0=2 x=2"},
                 /*ptx_allowed=*/{"r0=1 x=1", "r0=1 x=2", "r0=2 x=2"}};

LITMUS_TEST(k_cowr)
