// Litmus test peterson_rel_acq: Peterson's doorway with release stores and acquire loads: both threads read the other's flag as 0 and both enter.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_peterson_rel_acq(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rel);  // x = 1
      ref<int>(in.at(2)).store(0, rel);  // z = 0
      const int r0 = ref<int>(in.at(1)).load(acq);  // r0 = y
      const int r1 = ref<int>(in.at(2)).load(acq);  // r1 = z
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, rel);  // y = 1
      ref<int>(in.at(2)).store(1, rel);  // z = 1
      const int r2 = ref<int>(in.at(0)).load(acq);  // r2 = x
      const int r3 = ref<int>(in.at(2)).load(acq);  // r3 = z
      in.reg[2] = r2;
      in.reg[3] = r3;
      break;
    }
    default: stress(L);
  }
}

static const Test k_peterson_rel_acq{"peterson_rel_acq", 2, Placement::Cross, t_peterson_rel_acq,
                 {"r0", "r2"},
                 /*allowed=*/{"r0=0 r2=0"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r2=1", "r0=1 r2=0", "r0=1 r2=1"},
                 /*ptx_allowed=*/{"r0=0 r2=0", "r0=0 r2=1", "r0=1 r2=0", "r0=1 r2=1"}};

LITMUS_TEST(k_peterson_rel_acq)
