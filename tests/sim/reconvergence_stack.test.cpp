// The lockstep model's reconvergence stack (sim/exec/reconvergence_stack.h), on its own.
//
// The first cases check the stack operations entry by entry. The later ones run small branchy
// programs through the stack the way the interpreter drives it (sim/exec/kernel_run.cpp: pick
// the top entry after pop_reconverged, branch, exit) and compare with each lane run alone: every
// lane must execute exactly its own path, and the lanes must meet again at the reconvergence
// points (the branches' immediate post-dominators, written down by hand for each program).
#include <synclab/catch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "sim/exec/reconvergence_stack.h"

using namespace synclab::sim;

namespace {

constexpr uint32_t kF = 3;  // some function index

void check_entry(const StackEntry& e, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t depth = 0) {
  CHECK(e.func == kF);
  CHECK(e.pc == pc);
  CHECK(e.rpc == rpc);
  CHECK(e.mask == mask);
  CHECK(e.depth == depth);
}

// A tiny program: each instruction falls through, branches, or exits.
struct Ins {
  enum Kind { Nop, Bra, Exit } kind = Nop;
  uint32_t target = 0, rpc = 0;
  // Whether lane takes the branch; `times` counts the lane's earlier executions of this branch.
  std::function<bool(int lane, int times)> cond;
};
Ins nop() { return {}; }
Ins exit_() { return {Ins::Exit, 0, 0, nullptr}; }
Ins bra(uint32_t target, uint32_t rpc, std::function<bool(int, int)> c) { return {Ins::Bra, target, rpc, c}; }
Ins jmp(uint32_t target) { return {Ins::Bra, target, 0, [](int, int) { return true; }}; }

struct Step {
  uint32_t pc, mask;
};

// One lane on its own: the PCs it executes.
std::vector<uint32_t> lane_path(const std::vector<Ins>& prog, int lane) {
  std::vector<uint32_t> path;
  std::map<uint32_t, int> times;
  uint32_t pc = 0;
  while (true) {
    REQUIRE(path.size() < 10000);
    path.push_back(pc);
    const Ins& I = prog.at(pc);
    if (I.kind == Ins::Exit) return path;
    if (I.kind == Ins::Bra && I.cond(lane, times[pc]++)) pc = I.target;
    else ++pc;
  }
}

// The warp in lockstep: the steps it takes (PC and active lanes).
std::vector<Step> run_lockstep(const std::vector<Ins>& prog, uint32_t lanes, bool taken_first) {
  ReconvergenceStack s;
  s.reset(kF, 0, lanes);
  std::vector<Step> steps;
  std::map<uint32_t, int> times[32];
  while (true) {
    s.pop_reconverged();
    if (s.empty()) break;
    REQUIRE(steps.size() < 10000);
    StackEntry& t = s.top();
    const uint32_t pc = t.pc, mask = t.mask;
    steps.push_back({pc, mask});
    const Ins& I = prog.at(pc);
    if (I.kind == Ins::Exit) {
      s.remove_lanes(mask);
    } else if (I.kind == Ins::Nop) {
      t.pc = pc + 1;
    } else {
      uint32_t taken = 0;
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1 && I.cond(l, times[l][pc]++)) taken |= 1u << l;
      const uint32_t not_taken = mask & ~taken;
      if (!not_taken) t.pc = I.target;
      else if (!taken) t.pc = pc + 1;
      else if (taken_first) s.diverge(I.rpc, I.target, taken, pc + 1, not_taken);
      else s.diverge(I.rpc, pc + 1, not_taken, I.target, taken);
    }
  }
  return steps;
}

// Every lane executed exactly its own path, in order, and nothing ran without lanes.
void check_paths(const std::vector<Ins>& prog, const std::vector<Step>& steps, uint32_t lanes) {
  for (const Step& st : steps) REQUIRE(st.mask != 0);
  for (int l = 0; l < 32; ++l) {
    std::vector<uint32_t> got;
    for (const Step& st : steps)
      if (st.mask >> l & 1) got.push_back(st.pc);
    INFO("lane " << l);
    if (lanes >> l & 1) CHECK(got == lane_path(prog, l));
    else CHECK(got.empty());  // absent lanes never run
  }
}

// The steps at one PC.
std::vector<uint32_t> masks_at(const std::vector<Step>& steps, uint32_t pc) {
  std::vector<uint32_t> out;
  for (const Step& st : steps)
    if (st.pc == pc) out.push_back(st.mask);
  return out;
}

uint32_t lanes_where(uint32_t lanes, const std::function<bool(int)>& f) {
  uint32_t m = 0;
  for (int l = 0; l < 32; ++l)
    if (lanes >> l & 1 && f(l)) m |= 1u << l;
  return m;
}

const uint32_t kLaneSets[] = {0x1u, 0x7Fu, 0xFFFFFFFFu, 0x80F0F001u, 0x2u};

}  // namespace

TEST_CASE("reconvergence stack: reset makes one base entry", "[sim][stack]") {
  ReconvergenceStack s;
  CHECK(s.empty());
  s.reset(kF, 12, 0x7F);
  REQUIRE(s.entries().size() == 1);
  CHECK_FALSE(s.empty());
  check_entry(s.top(), 12, ReconvergenceStack::kNoRpc, 0x7F);
  s.reset(kF, 0, 0xFFFFFFFF);  // a second reset starts over
  REQUIRE(s.entries().size() == 1);
  check_entry(s.top(), 0, ReconvergenceStack::kNoRpc, 0xFFFFFFFF);
}

TEST_CASE("reconvergence stack: a divergent branch and its reconvergence", "[sim][stack]") {
  ReconvergenceStack s;
  s.reset(kF, 4, 0xFF);
  s.top().depth = 2;  // the pushed entries inherit call depth and function
  s.diverge(/*rpc*/ 20, /*first*/ 10, 0x0F, /*second*/ 5, 0xF0);
  REQUIRE(s.entries().size() == 3);
  check_entry(s.entries()[0], 20, ReconvergenceStack::kNoRpc, 0xFF, 2);  // waits at the rpc, all lanes
  check_entry(s.entries()[1], 5, 20, 0xF0, 2);                           // the second side
  check_entry(s.top(), 10, 20, 0x0F, 2);                                  // the first side runs

  s.pop_reconverged();  // nobody is at the rpc yet
  CHECK(s.entries().size() == 3);
  s.top().pc = 19;
  s.pop_reconverged();
  CHECK(s.entries().size() == 3);

  s.top().pc = 20;  // the first side arrives
  s.pop_reconverged();
  REQUIRE(s.entries().size() == 2);
  check_entry(s.top(), 5, 20, 0xF0, 2);

  s.top().pc = 20;  // the second side arrives: all lanes together again at the rpc
  s.pop_reconverged();
  REQUIRE(s.entries().size() == 1);
  check_entry(s.top(), 20, ReconvergenceStack::kNoRpc, 0xFF, 2);
  s.pop_reconverged();  // the base entry stays
  CHECK(s.entries().size() == 1);
}

TEST_CASE("reconvergence stack: a side that starts at the rpc pops with the other", "[sim][stack]") {
  // if (c) { ... } without else: the branch's other side is the rpc itself.
  ReconvergenceStack s;
  s.reset(kF, 0, 0x55);
  s.diverge(8, 1, 0x05, 8, 0x50);
  s.top().pc = 8;
  s.pop_reconverged();
  REQUIRE(s.entries().size() == 1);
  check_entry(s.top(), 8, ReconvergenceStack::kNoRpc, 0x55);
}

TEST_CASE("reconvergence stack: nested divergence unwinds inner first", "[sim][stack]") {
  ReconvergenceStack s;
  s.reset(kF, 0, 0xFFFFFFFF);
  s.diverge(30, 1, 0x0000FFFF, 20, 0xFFFF0000);
  s.top().pc = 2;
  s.diverge(10, 3, 0x000000FF, 6, 0x0000FF00);  // inside the first side
  REQUIRE(s.entries().size() == 5);
  check_entry(s.entries()[2], 10, 30, 0x0000FFFF);  // the inner reconvergence entry
  check_entry(s.top(), 3, 10, 0x000000FF);

  s.top().pc = 10;
  s.pop_reconverged();
  check_entry(s.top(), 6, 10, 0x0000FF00);
  s.top().pc = 10;
  s.pop_reconverged();
  REQUIRE(s.entries().size() == 3);
  check_entry(s.top(), 10, 30, 0x0000FFFF);  // the first side, whole again

  s.top().pc = 30;
  s.pop_reconverged();
  check_entry(s.top(), 20, 30, 0xFFFF0000);
  s.top().pc = 30;
  s.pop_reconverged();
  REQUIRE(s.entries().size() == 1);
  check_entry(s.top(), 30, ReconvergenceStack::kNoRpc, 0xFFFFFFFF);
}

TEST_CASE("reconvergence stack: push and pop of a call entry", "[sim][stack]") {
  ReconvergenceStack s;
  s.reset(kF, 7, 0x3);
  s.push({9, 0, ReconvergenceStack::kExitPc, 0x1, 1});
  REQUIRE(s.entries().size() == 2);
  CHECK(s.top().func == 9);
  CHECK(s.top().depth == 1);
  CHECK(s.top().rpc == ReconvergenceStack::kExitPc);
  s.pop();
  REQUIRE(s.entries().size() == 1);
  check_entry(s.top(), 7, ReconvergenceStack::kNoRpc, 0x3);
}

TEST_CASE("reconvergence stack: exiting lanes leave every entry", "[sim][stack]") {
  ReconvergenceStack s;
  s.reset(kF, 0, 0x7F);
  s.diverge(9, 1, 0x0F, 5, 0x70);
  s.remove_lanes(0x41);  // one lane of each side
  REQUIRE(s.entries().size() == 3);
  CHECK(s.entries()[0].mask == 0x3E);
  CHECK(s.entries()[1].mask == 0x30);
  CHECK(s.top().mask == 0x0E);

  s.remove_lanes(0x0E);  // the rest of the first side: its entry goes
  REQUIRE(s.entries().size() == 2);
  check_entry(s.top(), 5, 9, 0x30);
  CHECK(s.entries()[0].mask == 0x30);

  s.remove_lanes(0x30);  // every lane has exited
  CHECK(s.empty());
}

TEST_CASE("reconvergence stack: if/else, nested if and an early jump to the join run each lane's path",
          "[sim][stack]") {
  //  0: if (lane & 1) goto 6            rpc 9
  //  1:   nop
  //  2:   if (lane & 2) goto 5          rpc 5 (no else)
  //  3:     nop
  //  4:     nop
  //  5:   goto 9
  //  6:   nop
  //  7:   if (lane % 3 == 0) goto 9     rpc 9
  //  8:     nop
  //  9: nop                             (the join)
  // 10: exit
  const std::vector<Ins> prog = {
      bra(6, 9, [](int l, int) { return (l & 1) != 0; }),
      nop(),
      bra(5, 5, [](int l, int) { return (l & 2) != 0; }),
      nop(),
      nop(),
      jmp(9),
      nop(),
      bra(9, 9, [](int l, int) { return l % 3 == 0; }),
      nop(),
      nop(),
      exit_(),
  };
  for (uint32_t lanes : kLaneSets) {
    for (bool taken_first : {true, false}) {
      INFO("lanes " << std::hex << lanes << std::dec << (taken_first ? ", taken first" : ", fall-through first"));
      const auto steps = run_lockstep(prog, lanes, taken_first);
      check_paths(prog, steps, lanes);
      // Reconverged: the join and the exit run once, with every lane.
      CHECK(masks_at(steps, 9) == std::vector<uint32_t>{lanes});
      CHECK(masks_at(steps, 10) == std::vector<uint32_t>{lanes});
      // The inner join runs once with the lanes of the even side.
      const uint32_t even = lanes_where(lanes, [](int l) { return !(l & 1); });
      CHECK(masks_at(steps, 5) == (even ? std::vector<uint32_t>{even} : std::vector<uint32_t>{}));
      // The configured side runs first.
      const uint32_t odd = lanes & ~even;
      if (odd && even) {
        size_t first_odd = 0, first_even = 0;
        while (steps[first_odd].pc != 6) ++first_odd;
        while (steps[first_even].pc != 1) ++first_even;
        CHECK((first_odd < first_even) == taken_first);
      }
    }
  }
}

TEST_CASE("reconvergence stack: a loop with per-lane trip counts reconverges at its exit", "[sim][stack]") {
  //  0: nop                                 (body)
  //  1: if (++i < trips(lane)) goto 0      rpc 2
  //  2: nop                                 (after the loop)
  //  3: exit
  auto trips = [](int l) { return l % 5 + 1; };
  const std::vector<Ins> prog = {
      nop(),
      bra(0, 2, [trips](int l, int times) { return times + 1 < trips(l); }),
      nop(),
      exit_(),
  };
  for (uint32_t lanes : kLaneSets) {
    INFO("lanes " << std::hex << lanes);
    const auto steps = run_lockstep(prog, lanes, true);
    check_paths(prog, steps, lanes);
    CHECK(masks_at(steps, 2) == std::vector<uint32_t>{lanes});
    // Iteration k of the body runs with the lanes that have more than k trips.
    const auto body = masks_at(steps, 0);
    int most = 0;
    for (int l = 0; l < 32; ++l)
      if (lanes >> l & 1) most = std::max(most, trips(l));
    REQUIRE(body.size() == static_cast<size_t>(most));
    for (int k = 0; k < most; ++k) CHECK(body[k] == lanes_where(lanes, [&](int l) { return trips(l) > k; }));
  }
}

TEST_CASE("reconvergence stack: lanes that exit inside a branch no longer hold up the join", "[sim][stack]") {
  //  0: if (lane < 4) goto 3      rpc 4
  //  1: nop
  //  2: exit                      (lanes >= 4 leave early)
  //  3: nop
  //  4: nop                       (the join: only lanes < 4 arrive)
  //  5: exit
  const std::vector<Ins> prog = {
      bra(3, 4, [](int l, int) { return l < 4; }),
      nop(),
      exit_(),
      nop(),
      nop(),
      exit_(),
  };
  for (uint32_t lanes : kLaneSets) {
    for (bool taken_first : {true, false}) {
      INFO("lanes " << std::hex << lanes << std::dec << (taken_first ? ", taken first" : ", fall-through first"));
      const auto steps = run_lockstep(prog, lanes, taken_first);
      check_paths(prog, steps, lanes);
      const uint32_t low = lanes & 0xF;
      CHECK(masks_at(steps, 4) == (low ? std::vector<uint32_t>{low} : std::vector<uint32_t>{}));
    }
  }
}
