// Litmus test isa2_rel_acq: a chain of two hand-overs, each a release and an acquire.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_isa2_rel_acq(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      ref<int>(in.at(1)).store(1, rel);  // y = 1
      break;
    }
    case 1: {
      const int r0 = ref<int>(in.at(1)).load(acq);  // r0 = y
      ref<int>(in.at(2)).store(1, rel);  // z = 1
      in.reg[0] = r0;
      break;
    }
    case 2: {
      const int r1 = ref<int>(in.at(2)).load(acq);  // r1 = z
      const int r2 = ref<int>(in.at(0)).load(rlx);  // r2 = x
      in.reg[1] = r1;
      in.reg[2] = r2;
      break;
    }
    default: stress(L);
  }
}

static const Test k_isa2_rel_acq{"isa2_rel_acq", 3, Placement::Cross, t_isa2_rel_acq,
                 {"r0", "r1", "r2"},
                 /*allowed=*/{},
                 /*forbidden=*/{"r0=1 r1=1 r2=0"},
                 /*sc_outcomes=*/{"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0 r2=0", "r0=0 r1=0 r2=1", "r0=0 r1=1 r2=0", "r0=0 r1=1 r2=1", "r0=1 r1=0 r2=0", "r0=1 r1=0 r2=1", "r0=1 r1=1 r2=1"}};

LITMUS_TEST(k_isa2_rel_acq)
