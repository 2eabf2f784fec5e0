// Every outcome of a litmus test that a memory model allows, found by enumerating the test's
// candidate executions (which write each read reads, coherence order, Fence-SC order) and
// checking each with the oracle: the PTX model (ptx_axioms.h) and sequential consistency.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/memory/oracle/execution.h"
#include "sim/memory/oracle/litmus.h"
#include "sim/memory/oracle/run_order.h"

namespace synclab::memory {

// An outcome: the final value of every register of every thread (in thread order, r0 first; a
// register the run never wrote is 0) and then of every location (in the test's order).
using Outcome = std::vector<int64_t>;

struct Enumeration {
  std::set<Outcome> ptx;    // outcomes of executions the PTX model allows
  std::set<Outcome> sc;     // outcomes of sequentially consistent executions
  uint64_t candidates = 0;  // candidate executions checked
  // weak: allowed by PTX, not sequentially consistent
  std::set<Outcome> weak() const;
};

struct EnumerateOptions {
  bool ptx = true;
  bool sc = true;
  uint64_t max_candidates = 50'000'000;  // refuse (LitmusError) a test bigger than this
  // PTX with coherence order total per location (a stronger model: what an operational model that
  // keeps every location's writes in one order can reach), for docs/memory-model.md's table.
  bool total_co = false;
  // Only executions some order of running the instructions within these limits reaches
  // (run_order.h): what the simulator's relaxed model can produce, structurally.
  const RunOrderLimits* run_order = nullptr;
  // Only this outcome (the others are not looked for): for asking whether one outcome is allowed.
  const Outcome* target = nullptr;
};

// Why the simulator's relaxed model cannot produce a weak outcome PTX allows: the first of its
// rules (run_order.h) whose relaxation alone reaches it; "" when the rules allow it (then only
// chance keeps it from showing); else "several rules: A + B" for the first two rules whose
// relaxation together reaches it, "several rules (three or more)" or "none of these rules".
std::string gap_of(const LitmusTest& t, const Outcome& o);

Enumeration enumerate_outcomes(const LitmusTest& t, const EnumerateOptions& opt = {});

// How many values an outcome of the test has.
size_t outcome_size(const LitmusTest& t);
// Whether the outcome satisfies the test's `exists` condition.
bool satisfies(const LitmusTest& t, const Outcome& o);
// "0:r0=1 1:r0=0 x=1 y=1"
std::string outcome_text(const LitmusTest& t, const Outcome& o);
// The inverse of outcome_text (for outcome lists in files); false when it names something the test
// does not have.
bool parse_outcome(const LitmusTest& t, const std::string& text, Outcome* o);

}  // namespace synclab::memory
