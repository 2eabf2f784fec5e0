// Control-flow graph and reconvergence points of a function.
#pragma once

#include "sim/ptx/ir.h"

namespace synclab::sim::ptx {

// Fills fn.blocks (with succs/preds/ipdom), fn.block_of and fn.reconverge_pc from fn.code.
// Branch targets must already be resolved (Label operands, branch_tables).
//
// Post-dominators are computed against a virtual exit node that every block ending in
// ret/exit/trap (or falling off the end of the code) flows into. Blocks from which no path
// reaches the exit (infinite loops) are connected to the virtual exit too: for each such
// region, the block with the highest instruction index (typically the loop's latch) gets the
// edge, so branches inside an infinite loop still reconverge inside the loop.
void build_cfg(Function& fn);

}  // namespace synclab::sim::ptx
