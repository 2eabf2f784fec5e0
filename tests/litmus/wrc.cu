// Litmus test wrc: write-to-read causality without synchronization.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_wrc(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      break;
    }
    case 1: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      in.reg[0] = r0;
      break;
    }
    case 2: {
      const int r1 = ref<int>(in.at(1)).load(rlx);  // r1 = y
      const int r2 = ref<int>(in.at(0)).load(rlx);  // r2 = x
      in.reg[1] = r1;
      in.reg[2] = r2;
      break;
    }
    default: stress(L);
  }
}

static const Test k_wrc{"wrc", 3, Placement::Cross, t_wrc,
                 {"r0", "r1", "r2"},
                 /*allowed=*/{"r0=1 r1=1 r2=0"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=0", "r0=1 r1=1 r2=1"}};

LITMUS_TEST(k_wrc)
