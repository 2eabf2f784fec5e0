// Litmus test peterson_seq_cst: Peterson's doorway with seq_cst atomics: never both inside.
// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in
// docs/memory-model.md.
#include "litmus.cuh"

using namespace litmus;

__global__ void t_peterson_seq_cst(Launch L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      ref<int>(in.at(0)).store(1, sc);  // x = 1
      ref<int>(in.at(2)).store(0, sc);  // z = 0
      const int r0 = ref<int>(in.at(1)).load(sc);  // r0 = y
      const int r1 = ref<int>(in.at(2)).load(sc);  // r1 = z
      in.reg[0] = r0;
      in.reg[1] = r1;
      break;
    }
    case 1: {
      ref<int>(in.at(1)).store(1, sc);  // y = 1
      ref<int>(in.at(2)).store(1, sc);  // z = 1
      const int r2 = ref<int>(in.at(0)).load(sc);  // r2 = x
      const int r3 = ref<int>(in.at(2)).load(sc);  // r3 = z
      in.reg[2] = r2;
      in.reg[3] = r3;
      break;
    }
    default: stress(L);
  }
}

static const Test k_peterson_seq_cst{"peterson_seq_cst", 2, Placement::Cross, t_peterson_seq_cst,
                 {"r0", "r1", "r2", "r3", "z"},
                 /*allowed=*/{},
                 /*forbidden=*/{},
                 /*sc_outcomes=*/{"r0=0 r1=0 r2=1 r3=1 z=1", "r0=0 r1=1 r2=1 r3=1 z=1", "r0=1 r1=0 r2=0 r3=0 z=0", "r0=1 r1=0 r2=0 r3=1 z=0", "r0=1 r1=0 r2=1 r3=0 z=0", "r0=1 r1=0 r2=1 r3=1 z=0", "r0=1 r1=0 r2=1 r3=1 z=1", "r0=1 r1=1 r2=1 r3=1 z=1"},
                 /*ptx_allowed=*/{"r0=0 r1=0 r2=1 r3=1 z=1", "r0=0 r1=1 r2=1 r3=1 z=1", "r0=1 r1=0 r2=0 r3=0 z=0", "r0=1 r1=0 r2=0 r3=1 z=0", "r0=1 r1=0 r2=1 r3=0 z=0", "r0=1 r1=0 r2=1 r3=1 z=0", "r0=1 r1=0 r2=1 r3=1 z=1", "r0=1 r1=1 r2=1 r3=1 z=1"}};

LITMUS_TEST(k_peterson_seq_cst)
