// Litmus test corr: coherence of read-read: a newer value is never followed by an older one.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_corr(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      break;
    }
    case 1: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      const int r1 = ref<int>(in.at(0)).load(rlx);  // r1 = x
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    default: stress(L);
  }
}

static const Test k_corr{"corr", 2, Placement::Cross, t_corr,
                 {"r0", "r1"},
                 /*allowed=*/{},
                 /*forbidden=*/{"r0=1 r1=0"},
                 /*sc_outcomes=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"}};

LITMUS_TEST(k_corr)
