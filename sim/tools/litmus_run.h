// Running litmus tests (docs/litmus-format.md) on the simulator: each test becomes a PTX kernel
// (one role per litmus thread, at the block, warp and lane the test places it), which the
// simulator loads and launches once per seed, under `sc` or `relaxed`. Every run's outcome (the
// threads' registers, then memory) is counted; under `relaxed` with `check`, every run's recorded
// execution also goes to the oracle, with the test's dependencies added.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/memory/oracle/enumerate.h"
#include "sim/memory/oracle/litmus.h"

namespace synclab::litmus {

// The kernel for a test: PTX text with one entry, `litmus_test(.param .u64 mem, .param .u64 out)`.
// Its grid holds `instances` copies of the test side by side (copy k: blocks k * B .. k * B + B - 1
// for a test of B blocks, its locations and registers at mem and out plus k times their size), so
// one launch runs the test that many times with the copies' threads interleaved.
std::string litmus_ptx(const memory::LitmusTest& t, uint32_t instances = 1);

struct RunOptions {
  bool relaxed = true;
  uint64_t seeds = 1000;
  uint64_t first_seed = 1;
  // Copies of the test in each seed's launch (litmus_ptx): every copy's outcome is counted, so a
  // seed yields `instances` outcomes.
  uint32_t instances = 1;
  bool check = false;    // check each run's execution with the oracle
  bool explain = false;  // with check: a forbidden execution's events and relations in the problem's text
  // When set: stop before `seeds` once every one of these outcomes has shown (the seeds are then
  // at most `seeds`; runs that were not needed are not made), but not before `until_seen_min`
  // seeds: the runs also check that no forbidden outcome or execution shows, which a test with no
  // weak outcome (or one whose weak outcomes show at once) would otherwise not be run for.
  const std::set<memory::Outcome>* until_seen = nullptr;
  uint64_t until_seen_min = 1000;
  // Outcomes that the model's rules keep out of reach (gap_of in sim/memory/oracle/enumerate.h):
  // with until_seen, the unaimed seeds stop without waiting for those among its outcomes (the
  // aimed seeds still aim at them). They are still counted if they show (which would mean the
  // rules' mirror is out of date); with explain, the execution of the run where each first shows
  // is a problem of the result.
  const std::set<memory::Outcome>* kept_out = nullptr;
  // (with until_seen) Aimed seeds: when the seeds are done and some of those outcomes have not
  // shown, up to this many more seeds (numbered after them), each launch's copies aimed at the
  // outcomes still missing, one outcome a copy in turn (sim::OutcomeAim: among the choices the
  // model's rules allow, the ones that give the outcome first). 0: none.
  uint64_t aim_seeds = 0;
  // (with aim_seeds) The test's `exists` is an outcome PTX forbids: aim at it too, in every aimed
  // seed (it must never show: a search for the model's soundness bugs), and run all aim_seeds.
  bool aim_forbidden_exists = false;
};

struct RunResult {
  std::map<memory::Outcome, uint64_t> counts;
  uint64_t runs = 0;                               // launches (seeds); each counts RunOptions::instances outcomes
  uint64_t aimed_runs = 0;                         // of them, aimed launches (RunOptions::aim_seeds)
  std::set<memory::Outcome> aimed_seen;            // outcomes of until_seen first shown by an aimed launch
  std::map<memory::Outcome, uint64_t> first_seed;  // the seed in which each outcome first showed
  // Runs that went wrong: a launch that failed, an execution the oracle forbids (with the seed).
  std::vector<std::string> problems;
};

// Runs the test. Throws std::runtime_error when the kernel cannot be loaded.
RunResult run_litmus(const memory::LitmusTest& t, const RunOptions& opt);

}  // namespace synclab::litmus
