// Generating litmus tests from cycles of relaxation edges, in the manner of the herdtools `diy`
// tool.
//
// A test is built from a cycle of edges between memory accesses. Program-order edges stay in one
// thread: Pod (different locations) or Pos (same location), named by the directions of their two
// accesses (PodWR: a write, then a read of another location). Communication edges link accesses to
// one location: Rf (a write and a read that reads it), Fr (a read and a write coherence-after the
// write it read), Co (two writes in coherence order); external ones (Rfe, Fre, Coe) go from one
// thread to the next, internal ones (Rfi, Fri, Coi) stay in a thread. Sequential consistency
// forbids every such cycle, so each test asks whether the PTX model, with the test's decorations,
// still does.
//
// From a cycle: every external edge starts a new thread; every Pod edge starts a new location
// (so a cycle has one location or at least two); the writes of each location get the values 1, 2,
// ... in the order the cycle visits them, the coherence order the cycle implies; `exists` says
// that the cycle happened: a read that an Rf edge enters holds that write's value, a read that an
// Fr edge leaves holds the value of the write before the Fr target (0 before the first), and a
// location whose coherence order (Co edges, and the order an Fr edge implies) no read shows
// gets its final value. A cycle on a single location (CoRR, CoWW, ...) is cut at one edge, from
// whose target the values start; the condition then contradicts that edge, which is what
// coherence forbids. A cycle whose condition cannot show every edge (three writes in a row with
// nothing that reads the middle one, say) gives no test. diy adds observer threads for those.
//
// Decorations, the part of a test that is not the cycle:
//   accesses  weak (`ld`/`st`), relaxed.S, acquire.S (reads), release.S (writes), volatile,
//             read-modify-writes `atom.SEM.S.add|exch|cas` (in the place of reads or writes; their
//             write takes the next value of the location, and `exists` gives the value every atom
//             reads, which fixes the value it writes) and `red.SEM.S.add` (writes). An access whose
//             two cycle edges disagree on its direction (Rfe into it, Coe out of it) is an atom.
//             A location a red writes takes the values 1, 3, 7, 15, ...: each red adds a power of
//             two, so a red that reads another write than the cycle's writes no other write's value;
//             no two reds are next to each other in coherence order (in either order they would
//             add up to the same value).
//   po edges  nothing, a fence (fence.sc / acq_rel / acquire / release at cta, gpu or sys) between
//             the two accesses, or a dependency of the second on the first one's read: `dep rK`,
//             or (data) the second stores the register itself, where `exists` pins the register to
//             a value the store's location can take (the location's values are then relabelled).
//   placement all threads in one warp, in one block (a warp each), each in its own block, a mix
//             (some threads share a block or a warp, others do not), or one thread on the host
//             (whose strong accesses and fences use sys scope).
//
// Test names: CLASS+T0+T1+...+PLACE.
//   CLASS  the classic name of the undecorated cycle (MP, SB, LB, S, R, 2+2W, CoRR, CoRW, CoWR,
//          CoWW, WRC, RWC, WWC, ISA2, W+RWC, Z6.0 to Z6.5, 3.SB, 3.LB, 3.2W, IRIW), or else its
//          edges joined by '-', from thread 0's first access (Rfe-PodRR-Fre-PodWR-Fre).
//   Ti     thread i's accesses in program order, joined by what links them:
//          accesses  p (weak), rlx.S, acq.S, rel.S, vol, OP[.SEM].S (an atom: OP add, exch or cas;
//                    SEM acq, rel or acqrel, none for relaxed), red[.rel].S
//          links     _po_ (nothing), _fsc.S_ / _facqrel.S_ / _facq.S_ / _frel.S_ (a fence),
//                    _dep_, _data_, _rfi_ / _fri_ / _coi_ (an internal communication edge)
//          S is cta, gpu or sys.
//   PLACE  warp (one warp), cta (one block, a warp each), gpu (a block each), or one token per
//          thread: a block letter (a, b, ...) and a warp number, or h for the host: a0a0b0 is
//          threads 0 and 1 in one warp of block a and thread 2 in block b.
// Example: MP+rlx.gpu_frel.gpu_rlx.gpu+acq.gpu_po_p+gpu. A name that is taken already (the same
// cycle and decorations cannot give two programs, so this is a safeguard) gets '2, '3, ...
//
// Every test gets `expect` from the oracle (enumerate.h) and a `source` line naming its cycle with
// the decorated program-order edges (Fence.sc.gpu.dWW, DpdR for `dep`, DpDatadW for data) and
// whether the cycle is critical: at most two accesses per thread, to different locations, and
// at most three per location, in different threads (Shasha and Snir). A test whose `exists` a
// sequentially consistent execution reaches does not say that its cycle happened: the generator
// checks every test's cycle so (critical or not), drops such a test and counts it in the summary.

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/memory/oracle/litmus.h"

namespace synclab::memory {

struct GenerateOptions {
  size_t count = 2500;  // tests to generate (fewer when the cycles run out)
  uint64_t seed = 1;    // the same options and seed give the same tests in the same order
  int max_threads = 4;  // 2 to 4
  int max_ops = 4;      // memory operations per thread (fences not counted), 1 to 4
  // Thread placements to use.
  bool warp = true, cta = true, gpu = true, mixed = true, host = true;
  // A test whose estimated number of candidate executions (estimate_cost in generate.cpp, an upper
  // bound) is above this is dropped and counted: with the default, one-location cycles with five
  // or more writes, mostly atoms. The default set takes seconds to enumerate.
  uint64_t max_cost = 1000000;
};

struct GenerateStats {
  size_t tests = 0, allowed = 0, forbidden = 0;
  size_t with_weak = 0;      // tests whose PTX outcomes include a weak (not sequentially consistent) one
  size_t weak_outcomes = 0;  // weak outcomes over all tests
  size_t critical = 0;       // tests whose cycle is critical
  // Tests dropped because a sequentially consistent execution reaches their `exists` (the
  // condition does not say that the cycle happened): critical cycles, other cycles.
  size_t critical_sc_reachable = 0, other_sc_reachable = 0;
  size_t duplicates = 0;                  // candidates whose program and condition an earlier test has
  size_t too_costly = 0;                  // dropped by max_cost
  size_t not_expressible = 0;             // decorated cycles whose condition cannot show every edge
  size_t enumerate_failed = 0;            // the enumerator refused the test
  size_t cycles = 0, classic_cycles = 0;  // undecorated cycles that can give a test; classic shapes among them
  uint64_t candidates = 0;                // candidate executions checked over all tests
  double seconds = 0;                     // time to generate and enumerate
  // feature group -> feature -> tests that have it
  std::map<std::string, std::map<std::string, size_t>> features;
};

// Generates the tests (each with `expect` and `source`), deterministic in the options.
std::vector<LitmusTest> generate_litmus(const GenerateOptions& opt, GenerateStats* stats);

// The summary `synclab-litmus generate` prints: counts, verdicts, features, time.
std::string generate_summary(const GenerateStats& s);

// `synclab-litmus generate [--count N] [--seed S] [--out FILE] [--max-threads N] [--max-ops N]
// [--placements warp,cta,gpu,mixed,host] [--max-cost N]`: writes the tests to FILE (stdout without
// --out) and the summary to stderr. args: the arguments after `generate`.
int generate_command(const std::vector<std::string>& args);

}  // namespace synclab::memory
