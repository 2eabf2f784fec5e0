// Every litmus test of this folder in one program: `litmus_all --test NAME [options]` runs
// one of them as its own program would (litmus.cuh), `litmus_all --list` names them. One
// compile instead of one per test. Written by tests/litmus/generate.py.
#define LITMUS_ALL
#include "mp.cu"
#include "mp_fence.cu"
#include "mp_rel_acq.cu"
#include "mp_fence_block_cross.cu"
#include "mp_fence_block_same.cu"
#include "sb.cu"
#include "sb_fence.cu"
#include "sb_seq_cst.cu"
#include "lb.cu"
#include "lb_fence.cu"
#include "lb_data.cu"
#include "iriw.cu"
#include "iriw_fence.cu"
#include "corr.cu"
#include "coww.cu"
#include "cowr.cu"
#include "2p2w.cu"
#include "wrc.cu"
#include "wrc_rel_acq.cu"
#include "isa2.cu"
#include "isa2_rel_acq.cu"
#include "peterson_rel_acq.cu"
#include "peterson_fence_one.cu"
#include "peterson_seq_cst.cu"

int main(int argc, char** argv) { return litmus::run_named(argc, argv); }
