// Litmus test 2+2w: two threads' stores land in opposite orders at two locations.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_2p2w(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, rlx);  // x = 1
      ref<int>(in.at(1)).store(2, rlx);  // y = 2
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, rlx);  // y = 1
      ref<int>(in.at(0)).store(2, rlx);  // x = 2
      break;
    }
    default: stress(L);
  }
}

static const Test k_2p2w{"2+2w", 2, Placement::Cross, t_2p2w,
                 {"x", "y"},
                 /*allowed=*/{"x=1 y=1"},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"x=1 y=2", "x=2 y=1", "x=2 y=2"},
                 /*ptx_allowed=*/{"x=1 y=1", "x=1 y=2", "x=2 y=1", "x=2 y=2"}};

LITMUS_TEST(k_2p2w)
