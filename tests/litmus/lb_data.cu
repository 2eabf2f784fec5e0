// Litmus test lb_data: load buffering with data dependencies: no value out of thin air.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_lb_data(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      const int r0 = ref<int>(in.at(0)).load(rlx);  // r0 = x
      ref<int>(in.at(1)).store(r0, rlx);  // y = r0
      in.reg[0] = r0;
      break;
    }
    case 1: {
      const int r1 = ref<int>(in.at(1)).load(rlx);  // r1 = y
      ref<int>(in.at(0)).store(r1, rlx);  // x = r1
      in.reg[1] = r1;
      break;
    }
    default: stress(L);
  }
}

static const Test k_lb_data{"lb_data", 2, Placement::Cross, t_lb_data,
                 {"r0", "r1"},
                 /*allowed=*/{},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0"},
                 /*ptx_allowed=*/{"r0=0 r1=0"}};

LITMUS_TEST(k_lb_data)
