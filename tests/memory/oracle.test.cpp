// Unit tests of the memory-model oracle (sim/memory/oracle/): malformed executions and litmus
// files are refused with what is wrong, and the axioms decide hand-built executions as ptx.als
// does (each case says which axiom, and why, from the model's definitions).
#include <synclab/catch.h>

#include "sim/memory/oracle/enumerate.h"
#include "sim/memory/oracle/litmus.h"
#include "sim/memory/oracle/ptx_axioms.h"

using namespace synclab::memory;

namespace {

Event ev(EventKind k, uint32_t thread, uint32_t po, uint32_t loc = 0, Scope s = Scope::Gpu) {
  Event e;
  e.kind = k;
  e.thread = thread;
  e.po = po;
  e.loc = loc;
  e.scope = s;
  return e;
}

// Message passing: T0 writes x then y, T1 reads y then x; r_y reads w_y, r_x reads the initial x.
struct Mp {
  Execution x;
  uint32_t wx, wy, ry, rx;
  Mp(bool release, bool acquire) {
    x.threads = {ThreadPlace{0, 0}, ThreadPlace{1, 0}};
    wx = x.add(ev(EventKind::Write, 0, 0, 0));
    Event w = ev(EventKind::Write, 0, 1, 1);
    w.release = release;
    wy = x.add(w);
    Event r = ev(EventKind::Read, 1, 0, 1);
    r.acquire = acquire;
    ry = x.add(r);
    rx = x.add(ev(EventKind::Read, 1, 1, 0));
    x.rf[ry] = int32_t(wy);
    x.rf[rx] = -1;
  }
};

}  // namespace

TEST_CASE("the oracle allows message passing without synchronization and forbids it with release/acquire",
          "[memory][oracle]") {
  Mp plain(false, false);
  CHECK(check_ptx(plain.x).allowed);
  Mp ra(true, true);
  const AxiomResult r = check_ptx(ra.x);
  CHECK_FALSE(r.allowed);
  CHECK(r.axiom == "causality");  // the read of x misses w_x, which is before it in causality order
  Mp release_only(true, false);
  CHECK(check_ptx(release_only.x).allowed);
}

TEST_CASE("the oracle forbids a read of its own thread's later write (location_sc)", "[memory][oracle]") {
  Execution x;
  x.threads = {ThreadPlace{0, 0}};
  const uint32_t r = x.add(ev(EventKind::Read, 0, 0));
  const uint32_t w = x.add(ev(EventKind::Write, 0, 1));
  x.rf[r] = int32_t(w);
  const AxiomResult res = check_ptx(x);
  CHECK_FALSE(res.allowed);
  CHECK(res.axiom == "location_sc");
  CHECK(res.explain.find("e0") != std::string::npos);
}

TEST_CASE("the oracle's Fence-SC order: fence.sc.cta and fence.sc.gpu of one block are morally strong",
          "[memory][oracle]") {
  // Store buffering, both loads read the initial values: needs the two fences unordered.
  auto sb = [](Scope f0, Scope f1, uint32_t cta1) {
    Execution x;
    x.threads = {ThreadPlace{0, 0}, ThreadPlace{cta1, 1}};
    x.add(ev(EventKind::Write, 0, 0, 0));
    Event fa = ev(EventKind::Fence, 0, 1, 0, f0);
    fa.fence = FenceKind::Sc;
    const uint32_t a = x.add(fa);
    x.add(ev(EventKind::Read, 0, 2, 1));
    x.add(ev(EventKind::Write, 1, 0, 1));
    Event fb = ev(EventKind::Fence, 1, 1, 0, f1);
    fb.fence = FenceKind::Sc;
    const uint32_t b = x.add(fb);
    x.add(ev(EventKind::Read, 1, 2, 0));
    return std::make_tuple(x, a, b);
  };
  {
    auto [x, a, b] = sb(Scope::Cta, Scope::Gpu, 0);  // one block: morally strong
    x.sc = {{a, b}};
    CHECK_FALSE(check_ptx(x).allowed);
    x.sc = {{b, a}};
    CHECK_FALSE(check_ptx(x).allowed);
    x.sc.clear();  // unordered: not a candidate (wf_sc)
    CHECK(check_ptx(x).axiom == "wf_sc");
  }
  {
    auto [x, a, b] = sb(Scope::Cta, Scope::Gpu, 1);  // two blocks: the .cta fence does not include the other
    x.sc.clear();
    CHECK(check_ptx(x).allowed);
  }
}

TEST_CASE("the oracle refuses malformed executions, naming the event", "[memory][oracle]") {
  Execution x;
  x.threads = {ThreadPlace{0, 0}};
  const uint32_t w = x.add(ev(EventKind::Write, 0, 0, 0));
  const uint32_t r = x.add(ev(EventKind::Read, 0, 1, 1));
  SECTION("reads from a write to another location") {
    x.rf[r] = int32_t(w);
    const AxiomResult res = check_ptx(x);
    CHECK(res.axiom == "malformed");
    CHECK(res.explain.find("another location") != std::string::npos);
  }
  SECTION("reads from an event that is not a write") {
    x.rf[r] = int32_t(r);
    CHECK(check_ptx(x).explain.find("not a write") != std::string::npos);
  }
  SECTION("an event of a thread that does not exist") {
    x.events[1].thread = 7;
    CHECK(check_ptx(x).explain.find("thread 7") != std::string::npos);
  }
  SECTION("two events at one program-order position") {
    x.events[1].po = 0;
    CHECK(check_ptx(x).explain.find("same program-order position") != std::string::npos);
  }
  SECTION("coherence order between a write and a read") {
    x.co = {{w, r}};
    CHECK(check_ptx(x).explain.find("not writes to one location") != std::string::npos);
  }
  SECTION("a dependency backwards in program order") {
    x.events[0].kind = EventKind::Read;
    x.dep = {{r, w}};
    x.events[1].kind = EventKind::Read;
    x.dep = {{1, 0}};
    CHECK(check_ptx(x).explain.find("dependency") != std::string::npos);
  }
  SECTION("a fence without a scope") {
    x.events[0].kind = EventKind::Fence;
    x.events[0].scope = Scope::Thread;
    CHECK(check_ptx(x).explain.find("has no scope") != std::string::npos);
  }
}

TEST_CASE("litmus files: errors name the file, the line and what is wrong", "[memory][litmus]") {
  auto error_of = [](const std::string& text) {
    try {
      parse_litmus(text, "t.litmus");
    } catch (const LitmusError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("") == "t.litmus:0: no test in the file (a test starts with `litmus NAME`)");
  CHECK(error_of("litmus a\nthread 0\n  r0 = ld.relaxed.gpu [x]\nexists 0:r1=1\n").find("t.litmus:4:") == 0);
  CHECK(error_of("litmus a\nthread 0\n  r0 = ld.relaxed.gpu [x]\nexists 0:r1=1\n").find("writes no register") !=
        std::string::npos);
  CHECK(error_of("litmus a\nthread 1\n").find("expected `thread 0`") != std::string::npos);
  CHECK(error_of("litmus a\nthread 0\n  st.release [x], 1\n").find("t.litmus:3:") == 0);
  CHECK(error_of("litmus a\nthread 0\n  st.relaxed.gpu [x], r0\n").find("used before") != std::string::npos);
  CHECK(error_of("litmus a\nthread 0\n  frob [x]\n").find("unknown instruction") != std::string::npos);
  CHECK(error_of("litmus a\nthread 0\n  r0 = ld.relaxed.gpu [x]\n  r0 = ld.relaxed.gpu [y]\n").find("written twice") !=
        std::string::npos);
  CHECK(error_of("litmus a\nthread 0 cta 0\n  bar.sync\nthread 1 cta 0\n  st [x], 1\nexists x=1\n")
            .find("different numbers of bar.sync") != std::string::npos);
  CHECK(error_of("litmus a\nthread 0\n  st [x], 1\nexists x=1\ndisagree\n").find("`disagree` needs") !=
        std::string::npos);
}

TEST_CASE("enumeration: every sequentially consistent outcome is one PTX allows, and the weak ones are not SC",
          "[memory][enumerate]") {
  const auto tests = parse_litmus(
      "litmus sb\nthread 0\n st.relaxed.gpu [x], 1\n r0 = ld.relaxed.gpu [y]\nthread 1\n st.relaxed.gpu [y], 1\n"
      " r0 = ld.relaxed.gpu [x]\nexists 0:r0=0 & 1:r0=0\n"
      "litmus cas\nthread 0\n r0 = atom.relaxed.gpu.cas [x], 0, 1\nthread 1\n r0 = atom.relaxed.gpu.cas [x], 0, 2\n"
      "exists 0:r0=0 & 1:r0=0\n",
      "t.litmus");
  for (const LitmusTest& t : tests) {
    const Enumeration en = enumerate_outcomes(t);
    for (const Outcome& o : en.sc) CHECK(en.ptx.count(o) == 1);
    for (const Outcome& o : en.weak()) CHECK(en.sc.count(o) == 0);
    INFO(t.name);
    if (t.name == "sb") {
      CHECK(en.sc.size() == 3);  // the interleavings give 0/1, 1/0, 1/1
      CHECK(en.weak().size() == 1);
    } else {
      // Two morally strong compare-and-swaps: exactly one wins.
      bool both = false;
      for (const Outcome& o : en.ptx) both |= satisfies(t, o);
      CHECK_FALSE(both);
    }
    Outcome o;
    for (const Outcome& p : en.ptx) {
      REQUIRE(parse_outcome(t, outcome_text(t, p), &o));
      CHECK(o == p);
    }
  }
}

TEST_CASE("gap_of names the rule, or the two rules, that keep a weak outcome out of the model's reach",
          "[memory][enumerate]") {
  // Load buffering whose held-back read is an acquire load, with a store of the loaded value held
  // back, then an acq_rel exchange: T1 keeps its order (a dependency), so T0 must run its exchange
  // before its acquire of x takes effect. PTX allows it (neither read synchronizes: T1's store is
  // relaxed, T0's .cta acquire leaves T1's block out, T1's load is no acquire); the model runs no
  // acquiring read-modify-write early past an acquire it holds back and no releasing
  // read-modify-write early after a held-back write, so it needs both rules lifted. With T0's load
  // relaxed, one rule.
  const auto tests = parse_litmus(
      "litmus pair\nthread 0 cta 0\n r0 = ld.acquire.cta [x]\n st.relaxed.gpu [z], r0\n"
      " r1 = atom.acq_rel.gpu.exch [y], 1\n"
      "thread 1 cta 1\n r0 = ld.relaxed.gpu [y]\n st.relaxed.gpu [x], 1 dep r0\nexists 0:r0=1 & 1:r0=1\n"
      "litmus one\nthread 0 cta 0\n r0 = ld.relaxed.gpu [x]\n st.relaxed.gpu [z], r0\n"
      " r1 = atom.acq_rel.gpu.exch [y], 1\n"
      "thread 1 cta 1\n r0 = ld.relaxed.gpu [y]\n st.relaxed.gpu [x], 1 dep r0\nexists 0:r0=1 & 1:r0=1\n",
      "t.litmus");
  REQUIRE(tests.size() == 2);
  for (const LitmusTest& t : tests) {
    INFO(t.name);
    const Enumeration en = enumerate_outcomes(t);
    const Outcome* weak = nullptr;
    for (const Outcome& o : en.ptx)
      if (satisfies(t, o)) weak = &o;
    REQUIRE(weak != nullptr);
    CHECK(en.sc.count(*weak) == 0);
    if (t.name == "pair")
      CHECK(gap_of(t, *weak) ==
            "several rules: a releasing read-modify-write run early after a held-back write, fence or "
            "read-modify-write + an acquiring read-modify-write, or a read-modify-write after a held-back one or "
            "to the location of a held-back access, run before an earlier acquire held back");
    else
      CHECK(gap_of(t, *weak) ==
            "a releasing read-modify-write run early after a held-back write, fence or read-modify-write");
  }
}
