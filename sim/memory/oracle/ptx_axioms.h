// The oracle: whether the PTX memory model allows one execution (execution.h). A transcription
// of the axioms of the Alloy model published with Lustig, Sahasrabuddhe and Giroux, "A Formal
// Analysis of the NVIDIA PTX Memory Consistency Model" (ASPLOS 2019; repository
// NVlabs/ptxmemorymodel, file ptx.als), which the PTX ISA's chapter "Memory Consistency Model"
// states in prose. ptx_axioms.cpp names, for each relation, the Alloy definition it computes.
//
// The axioms (predicate ptx_mm of ptx.als; PTX ISA section in brackets):
//   no_thin_air   rf + dep is acyclic                                         ["No Thin Air"]
//   location_sc   strong(com) + po_loc is acyclic   ["Sequential Consistency Per Location"]
//   atomicity     no read-modify-write has a morally strong write between its read's source and
//                 its write (strong fr . strong co)                                ["Atomicity"]
//   coherence     writes to one location ordered by causality order are in coherence order
//                                                                                  ["Coherence"]
//   causality     no read is before, in causality order, the write it reads or a write coherence-
//                 after that one (optional[fr + rf] . cause is irreflexive)         ["Causality"]
// and the facts every candidate execution satisfies: coherence order total among the writes of
// each scope instance that the instance's scope covers (co_per_scope), Fence-SC order total on
// morally strong pairs of fence.sc and acyclic (wf_sc) ["Fence-SC order"].
//
// The witness relations an execution leaves open are chosen as the model permits: `observation`
// is the least relation the model's facts allow (strong rf, closed under observation.rmw.
// observation), which is the most permissive choice since it only ever adds causality; `co` and
// `sc` are the execution's own.
#pragma once

#include <string>
#include <vector>

#include "sim/memory/oracle/execution.h"
#include "sim/memory/oracle/relation.h"

namespace synclab::memory {

struct AxiomResult {
  bool allowed = true;
  std::string axiom;              // the first axiom or fact that fails ("" when allowed)
  std::vector<uint32_t> witness;  // events of a cycle (or a pair) that shows it
  std::string explain;            // one sentence, naming the events
};

// The derived relations of one execution, computed once (for the checks and for reports).
struct PtxRelations {
  Relation po, po_loc, strong, rf, co, fr, com, rmw, dep, obs, sync, synchronizes, sc, cause_base, cause;
  EventSet reads, writes;
};

// Computes the relations of a well-formed execution (Execution::malformed() empty).
PtxRelations ptx_relations(const Execution& x);
// Checks the axioms (and the facts of a candidate execution) in the order above.
AxiomResult check_ptx(const Execution& x);
AxiomResult check_ptx(const Execution& x, const PtxRelations& r);
// Whether the scope of event e includes thread t (ptx.als: t in e.scope.*subscope).
bool includes(const Execution& x, const Event& e, uint32_t t);
// Whether a and b are morally strong: each one's scope includes the other's thread (a weak
// access's scope is its own thread), as in ptx.als's strong_r.
bool morally_strong(const Execution& x, uint32_t a, uint32_t b);

// Sequential consistency over the same events (the reference for SYNCLAB_MEMORY=sc): rf, co and
// fr agree with one interleaving of program order (acyclic po + rf + co + fr, co total per
// location) and no write comes between a read-modify-write's read and write.
AxiomResult check_sc(const Execution& x);

}  // namespace synclab::memory
