// Lab 10 (the memory model): the graded tests. Points are in the tags ([pts:N]); each case is
// graded on its own (the grader runs it in its own process).
//
// On the simulator the litmus cases (tasks 1-3) run each test one instance per launch over
// pct and random seeds under both memory models, `sc` and `relaxed` (docs/memory-model.md), with
// every checker on; tasks 4 and 5 explore under both warp models too. Expected values come from
// the host references in this file, written apart from the harness:
//   - the outcomes of every interleaving of each litmus test (sequential consistency);
//   - the outcomes of every execution under total store order (TSO): each thread's stores wait in
//     a FIFO buffer, its loads read its own newest buffered store or memory, and a buffered store
//     reaches memory, and so every other thread at once, at any later moment. The simulator has
//     no TSO mode: this enumerator is the only reference for the tso column;
//   - the PTX memory model's verdict on each weak outcome, as tests/litmus/ptx_model.py (a
//     transcription of the axioms of Lustig et al., ASPLOS 2019) gives it; exploration under
//     `relaxed` must agree with it, so a weak exploration cannot pass a wrong prediction;
//   - sums and values of tasks 4 and 5.
// Tasks 2 and 3 are also graded on how much they synchronize: the simulator build keeps every
// kernel's PTX in the program, and the cases read the student kernel's fences and acquire/release
// accesses from it (lab10::sync_use): the weak outcome must be gone under `relaxed`, and no
// fence.sc where release/acquire is enough, no more fence.sc than one per thread that needs it,
// and no scope wider than the threads involved. On a GPU the same cases repeat the runs and check
// the results only (a GPU build holds no PTX to read; a prediction must contain what the GPU showed).
#include <synclab/catch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab10.h"
#include "synclab_lab.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// A litmus test is one tiny launch: many seeds are cheap. Under `sc` the runs only check that every
// outcome is an interleaving's; under `relaxed` task 1's rarest weak outcomes (LB, IRIW) show in
// about 1 run of 60, hence the count.
constexpr int kScSeeds = 60, kRelaxedSeeds = 300;

std::vector<Schedule> litmus_schedules() {
  std::vector<Schedule> all;
  for (const auto& [memory, seeds] : {std::pair<const char*, int>{"sc", kScSeeds}, {"relaxed", kRelaxedSeeds}}) {
    Exploration e;
    e.memories = {memory};
    e.models = {"its"};  // the roles are in different warps: lockstep adds nothing
    e.rr = false;
    e.pct_seeds = e.random_seeds = seeds;
    e.gpu_runs = 2;
    for (const Schedule& s : synclab::lab::schedules(e)) all.push_back(s);
  }
  return all;
}

Exploration program_exploration(int seeds) {
  Exploration e;
  e.memories = {"sc", "relaxed"};
  e.pct_seeds = e.random_seeds = seeds;
  e.gpu_runs = 20;
  return e;
}

std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab10", args, s); }

// ---- host references: the litmus tests, SC and TSO ----------------------------------------------------
struct Op {
  bool store;
  int loc;    // 0: x, 1: y
  int value;  // a store's value
  int reg;    // a load's register
};
struct HostTest {
  std::vector<std::vector<Op>> threads;
  std::vector<std::string> show;  // "r0", ..., "x", "y"
};
bool operator==(const Op& a, const Op& b) {
  return a.store == b.store && a.loc == b.loc && a.value == b.value && a.reg == b.reg;
}
Op st(char loc, int v) { return {true, loc - 'x', v, -1}; }
Op ld(char loc, int r) { return {false, loc - 'x', 0, r}; }

const std::map<std::string, HostTest>& host_tests() {
  static const std::map<std::string, HostTest> t{
      {"mp", {{{st('x', 1), st('y', 1)}, {ld('y', 0), ld('x', 1)}}, {"r0", "r1"}}},
      {"sb", {{{st('x', 1), ld('y', 0)}, {st('y', 1), ld('x', 1)}}, {"r0", "r1"}}},
      {"lb", {{{ld('x', 0), st('y', 1)}, {ld('y', 1), st('x', 1)}}, {"r0", "r1"}}},
      {"iriw", {{{st('x', 1)}, {st('y', 1)}, {ld('x', 0), ld('y', 1)}, {ld('y', 2), ld('x', 3)}}, {"r0", "r1", "r2", "r3"}}},
      {"corr", {{{st('x', 1)}, {ld('x', 0), ld('x', 1)}}, {"r0", "r1"}}},
      {"2+2w", {{{st('x', 1), st('y', 2)}, {st('y', 1), st('x', 2)}}, {"x", "y"}}},
      {"s", {{{st('x', 2), st('y', 1)}, {ld('y', 0), st('x', 1)}}, {"r0", "x"}}},
      {"r", {{{st('x', 1), st('y', 1)}, {st('y', 2), ld('x', 0)}}, {"r0", "y"}}},
      {"wrc", {{{st('x', 1)}, {ld('x', 0), st('y', 1)}, {ld('y', 1), ld('x', 2)}}, {"r0", "r1", "r2"}}},
      {"cowr", {{{st('x', 1), ld('x', 0)}, {st('x', 2)}}, {"r0", "x"}}},
      {"corw", {{{ld('x', 0), st('x', 1)}, {st('x', 2)}}, {"r0", "x"}}},
  };
  return t;
}

// One state of an execution: where each thread is, memory, registers, and (TSO) store buffers.
struct State {
  std::vector<size_t> pc;
  int mem[2] = {0, 0};
  int reg[4] = {0, 0, 0, 0};
  std::vector<std::vector<std::pair<int, int>>> buffer;  // per thread: (loc, value), oldest first
};

std::string outcome_text(const HostTest& t, const State& s) {
  std::string o;
  for (const std::string& w : t.show)
    o += (o.empty() ? "" : " ") + w + "=" + std::to_string(w[0] == 'r' ? s.reg[w[1] - '0'] : s.mem[w[0] - 'x']);
  return o;
}

// Every outcome: under SC (tso = false) each step runs one thread's next operation on memory;
// under TSO a store goes into the thread's buffer, a load reads the thread's newest buffered store
// to its location or else memory, and a step may also move a buffer's oldest store to memory.
void enumerate(const HostTest& t, const State& s, bool tso, std::set<std::string>& out) {
  bool done = true;
  for (size_t i = 0; i < t.threads.size(); ++i) {
    if (tso && !s.buffer[i].empty()) {
      done = false;
      State n = s;
      n.mem[n.buffer[i].front().first] = n.buffer[i].front().second;
      n.buffer[i].erase(n.buffer[i].begin());
      enumerate(t, n, tso, out);
    }
    if (s.pc[i] == t.threads[i].size()) continue;
    done = false;
    State n = s;
    const Op& op = t.threads[i][n.pc[i]++];
    if (op.store) {
      if (tso) n.buffer[i].push_back({op.loc, op.value});
      else n.mem[op.loc] = op.value;
    } else {
      int v = n.mem[op.loc];
      if (tso)
        for (const auto& b : n.buffer[i])
          if (b.first == op.loc) v = b.second;  // the newest buffered store wins
      n.reg[op.reg] = v;
    }
    enumerate(t, n, tso, out);
  }
  if (done) out.insert(outcome_text(t, s));
}

std::set<std::string> host_outcomes(const std::string& test, bool tso) {
  const HostTest& t = host_tests().at(test);
  State s;
  s.pc.assign(t.threads.size(), 0);
  s.buffer.resize(t.threads.size());
  std::set<std::string> out;
  enumerate(t, s, tso, out);
  return out;
}

// The PTX memory model's verdict on each test's weak outcome, from tests/litmus/ptx_model.py
// (which checks every candidate execution against the model's axioms; the verdicts of the first six
// are also in docs/memory-model.md's table): allowed for all but CoRR, CoWR and CoRW, whose weak
// outcomes break coherence (SC per location).
bool ptx_allows_weak(const std::string& test) { return test != "corr" && test != "cowr" && test != "corw"; }

std::string word(bool allowed) { return allowed ? "allowed" : "forbidden"; }

// ---- task 1 ------------------------------------------------------------------------------------------
void check_prediction(const std::string& test) {
  const lab10::Prediction p = lab10::prediction(test);
  const lab10::LitmusTest& t = lab10::litmus_test(test);
  auto valid = [](const std::string& v) { return v == "allowed" || v == "forbidden"; };
  INFO("predictions.cu, the row of " << test << " (weak outcome " << t.weak << "): sc " << (p.sc.empty() ? "?" : p.sc)
                                     << ", tso " << (p.tso.empty() ? "?" : p.tso) << ", ptx "
                                     << (p.ptx.empty() ? "?" : p.ptx));
  if (p.sc.empty()) {
    const std::string student = synclab::lab::student_id();
    FAIL("predictions.cu has no row for " << test << ", one of your six tests"
                                          << (student.empty() ? std::string() : " (student id '" + student + "')")
                                          << ": add it to the table. "
                                          << (student.empty() ? std::string() : "SYNCLAB_STUDENT=" + student + " ")
                                          << synclab::lab::program_command("lab10")
                                          << " predict prints the rows the table lacks, ready to fill in");
  }
  CHECKED_ELSE((valid(p.sc) && valid(p.tso) && valid(p.ptx)))
  FAIL("predictions.cu: the row of " << test << " needs three verdicts, each allowed or forbidden (is TODO(1) done?)");

  // The references.
  const std::set<std::string> sc_ref = host_outcomes(test, false), tso_ref = host_outcomes(test, true);
  REQUIRE(!sc_ref.empty());
  for (const std::string& o : sc_ref) REQUIRE(tso_ref.count(o));  // every interleaving is a TSO execution
  const bool sc_weak = sc_ref.count(t.weak) > 0, tso_weak = tso_ref.count(t.weak) > 0;

  // Exploration.
  std::map<std::string, std::map<std::string, long>> seen;  // memory -> outcome -> runs
  std::string first_weak;
  for (const Schedule& s : litmus_schedules()) {
    const lab10::LitmusResult r =
        synclab::lab::run_under(s, [&] { return lab10::run_litmus(t, s.on_gpu() ? 4096 : 1); });
    for (const auto& [o, n] : r.counts) seen[s.on_gpu() ? "gpu" : s.memory][o] += n;
    if (r.counts.count(t.weak) && first_weak.empty()) first_weak = replay("litmus --test " + test, s);
    CHECKED_ELSE(r.reports.empty())
    FAIL(test << ": the simulator reported " << synclab::lab::brief(r.reports.front()) << " in "
              << replay("litmus --test " + test, s) << "\n" << r.reports.front().text);
  }
  const std::string watch_sc = synclab::lab::program_command("lab10") + " litmus --test " + test + " --memory sc";
  const std::string watch = synclab::lab::program_command("lab10") + " litmus --test " + test + " --memory relaxed";
  if (synclab::lab::on_simulator()) {
    // Exploration checked against the references first: a weak exploration must not grade.
    for (const auto& [o, n] : seen["sc"]) {
      CHECKED_ELSE(sc_ref.count(o) > 0)
      FAIL(test << ": the simulator's sc mode showed " << o << ", which no interleaving gives (a simulator bug: "
                << watch_sc << ")");
    }
    const bool relaxed_weak = seen["relaxed"].count(t.weak) > 0;
    CHECKED_ELSE(relaxed_weak == ptx_allows_weak(test))
    FAIL(test << ": exploration under relaxed " << (relaxed_weak ? "showed" : "did not show") << " the weak outcome "
              << t.weak << ", which disagrees with the PTX memory model (tests/litmus/ptx_model.py): a problem of the "
              << "simulator or of this test, not of your predictions (" << watch << ")");
    CHECKED_ELSE(p.sc == word(sc_weak))
    FAIL(test << ": your sc prediction (" << p.sc << ") disagrees with the interleavings of the test: list them by hand, "
              << "or watch them: " << watch_sc);
    CHECKED_ELSE(p.ptx == word(relaxed_weak))
    FAIL(test << ": your ptx prediction (" << p.ptx << ") disagrees with exploration under the relaxed memory model"
              << (relaxed_weak ? ", which showed the weak outcome, in: " + first_weak : ", which never showed the weak outcome")
              << "\n  watch: " << watch);
  } else {
    // A GPU shows what it shows: a weak outcome seen there must be predicted as allowed by PTX.
    CHECKED_ELSE((!seen["gpu"].count(t.weak) || p.ptx == "allowed"))
    FAIL(test << ": the GPU showed the weak outcome " << t.weak << " but your ptx prediction is " << p.ptx);
    CHECKED_ELSE(p.sc == word(sc_weak))
    FAIL(test << ": your sc prediction (" << p.sc << ") disagrees with the interleavings of the test");
  }
  CHECKED_ELSE(p.tso == word(tso_weak))
  FAIL(test << ": your tso prediction (" << p.tso << ") disagrees with total store order (each thread's stores wait "
            << "in a FIFO buffer; a load reads its own thread's newest buffered store or memory; a store leaves the "
            << "buffer for memory, where every other thread sees it at once): play the test through with buffers");
}

// The student's six tests (SYNCLAB_STUDENT draws them; without it the README's six), one case each.
void check_slot(size_t k) {
  const std::string student = synclab::lab::student_id();
  const std::vector<std::string> tests = lab10::task1_tests(student);
  REQUIRE(tests.size() == 6);
  INFO("task 1's test " << k + 1 << " of 6"
                        << (student.empty() ? std::string(" (no student id)") : " for student id '" + student + "'")
                        << ": " << tests[k]);
  check_prediction(tests[k]);
}

TEST_CASE("lab10 task1 predict litmus test 1 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(0); }
TEST_CASE("lab10 task1 predict litmus test 2 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(1); }
TEST_CASE("lab10 task1 predict litmus test 3 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(2); }
TEST_CASE("lab10 task1 predict litmus test 4 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(3); }
TEST_CASE("lab10 task1 predict litmus test 5 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(4); }
TEST_CASE("lab10 task1 predict litmus test 6 of 6 under sc tso and ptx", "[lab10][task1][pts:2]") { check_slot(5); }

// ---- tasks 2 and 3 -----------------------------------------------------------------------------------
// How a fixed test must synchronize.
enum class Needs {
  release_acquire,  // a hand-over (MP, LB): release/acquire forbids the weak outcome; fence.sc is more
  fence_sc_2,       // only fence.sc forbids it (SB, IRIW, 2+2W): one in each of the two threads that need it
};

std::string instructions(const lab10::SyncUse& u) {
  std::string s;
  for (const std::string& i : u.instructions) s += (s.empty() ? "" : ", ") + i;
  return s.empty() ? "none" : s;
}

// The synchronization the kernel's PTX shows, against what the test needs at `scope` ("gpu": the
// threads are in different blocks; "cta": in one block): too little, too strong or too wide.
// Empty when it is the cheapest that forbids the weak outcome. shown: the explored runs showed the
// weak outcome (else the missing synchronization is named although no run showed what it allows).
std::string sync_problems(const lab10::SyncUse& u, Needs needs, const std::string& scope, const std::string& advice,
                          bool shown = false) {
  std::vector<std::string> problems;
  const std::string seen = shown ? "" : " (the explored runs did not show it)";
  // Missing first: what names the part the program lacks.
  if (needs == Needs::release_acquire && (u.releases == 0 || u.acquires == 0))
    problems.push_back(std::string("nothing ") + (u.releases == 0 ? "releases" : "acquires") +
                       ": a hand-over synchronizes only when a release is read by an acquire, so PTX still allows "
                       "the weak outcome" + seen + ": forbid it with " + advice);
  if (needs == Needs::fence_sc_2 && u.fence_sc < 2)
    problems.push_back(std::to_string(u.fence_sc) + " fence.sc where both threads need one, so PTX still allows the "
                       "weak outcome" + seen + ": forbid it with " + advice);
  if (u.scopes.count("sys"))
    problems.push_back(std::string("system scope (.sys: thread_scope_system, __threadfence_system()) is wider than "
                                   "needed: every thread of the test runs on this GPU, so ") +
                       (scope == "cta" ? "block scope (.cta)" : "device scope (.gpu)") + " covers them");
  if (scope == "cta" && u.scopes.count("gpu"))
    problems.push_back("device scope (.gpu: thread_scope_device, __threadfence()) is wider than needed: both threads "
                       "are in one block, so block scope covers them (block_ref, thread_scope_block)");
  if (scope == "gpu" && u.scopes.count("cta"))
    problems.push_back("block scope (.cta) does not cover threads in different blocks: synchronization at block "
                       "scope between blocks is a heterogeneous race (the weak outcome stays allowed); use device "
                       "scope (device_ref, thread_scope_device)");
  if (needs == Needs::release_acquire && u.fence_sc > 0)
    problems.push_back(std::to_string(u.fence_sc) +
                       " fence.sc (a seq_cst fence or atomic, __threadfence()) where release/acquire is enough: " + advice);
  if (needs == Needs::fence_sc_2 && u.fence_sc > 2)
    problems.push_back(std::to_string(u.fence_sc) +
                       " fence.sc where two are enough (seq_cst loads and stores each bring their own): " + advice);
  if (needs == Needs::fence_sc_2 && u.acquire_release + u.fence_acq_rel > 0)
    problems.push_back("release/acquire on top of the fence.sc adds nothing here: " + advice);
  std::string o;
  for (const std::string& p : problems) o += (o.empty() ? "" : ";\n  ") + p;
  return o;
}

void check_fixed(const std::string& test, Needs needs, const std::string& scope, const std::string& todo,
                 const std::string& advice) {
  const lab10::LitmusTest& t = lab10::litmus_test(test);
  long runs = 0, weak = 0;
  // What the kernel's synchronization lacks, for the message when the weak outcome shows: the
  // specific problem when its PTX shows one (never advice to add what is there), else the advice.
  auto diagnosis = [&] {
    if (!synclab::lab::on_simulator()) return "forbid it with " + std::string(advice);
    const lab10::SyncUse u = lab10::sync_use(t.kernel);
    const std::string p = u.found ? sync_problems(u, needs, scope, advice, true) : "";
    return p.empty() ? "forbid it with " + std::string(advice) : p;
  };
  for (const Schedule& s : litmus_schedules()) {
    const lab10::LitmusResult r =
        synclab::lab::run_under(s, [&] { return lab10::run_litmus(t, s.on_gpu() ? 4096 : 1); });
    const std::string cmd = replay("litmus --test " + test, s);
    for (const auto& [o, n] : r.counts) runs += n;
    CHECKED_ELSE(r.counts.count(t.weak) == 0)
    FAIL(t.kernel << " (" << todo << "): the weak outcome " << t.weak << " appeared, in:\n  replay: " << cmd
                  << "\n  (the synchronization in its PTX: " << instructions(lab10::sync_use(t.kernel)) << "; "
                  << diagnosis() << ")");
    CHECKED_ELSE(r.reports.empty())
    FAIL(t.kernel << " (" << todo << "): the simulator reported " << synclab::lab::brief(r.reports.front())
                  << "\n  replay: " << cmd << "\n" << r.reports.front().text << "\n  (" << advice << ")");
  }
  REQUIRE(runs > 0);
  if (!synclab::lab::on_simulator()) return;  // a GPU build holds no PTX to read
  const lab10::SyncUse u = lab10::sync_use(t.kernel);
  REQUIRE(u.found);  // the simulator build keeps the PTX of every kernel
  const std::string problems = sync_problems(u, needs, scope, advice);
  CHECKED_ELSE(problems.empty())
  FAIL(t.kernel << " (" << todo << "): the weak outcome did not show in these runs, but the synchronization is "
                << "not the cheapest that forbids it. Its PTX: " << instructions(u) << ".\n  " << problems);
}

const char* kRelAcq =
    "a release store of the flag (device_ref<int>(...).store(v, release)) and an acquire load of it "
    "(device_ref<int>(...).load(acquire)); the data may stay relaxed";
const char* kLbRelAcq =
    "acquire loads and release stores (device_ref<int>(...).load(acquire), .store(1, release)): a load that reads "
    "the other thread's release then orders the store after it";
const char* kFenceSc =
    "one cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device) in each of the two threads, between its two "
    "accesses, and relaxed accesses";

TEST_CASE("lab10 task2a mp_fixed forbids the stale read with the cheapest synchronization", "[lab10][task2][pts:2]") {
  check_fixed("mp_fixed", Needs::release_acquire, "gpu", "TODO(2a)", kRelAcq);
}
TEST_CASE("lab10 task2b sb_fixed forbids both reading 0 with the cheapest synchronization", "[lab10][task2][pts:2]") {
  check_fixed("sb_fixed", Needs::fence_sc_2, "gpu", "TODO(2b)", kFenceSc);
}
TEST_CASE("lab10 task2c lb_fixed forbids both reading 1 with the cheapest synchronization", "[lab10][task2][pts:2]") {
  check_fixed("lb_fixed", Needs::release_acquire, "gpu", "TODO(2c)", kLbRelAcq);
}
TEST_CASE("lab10 task2d iriw_fixed makes the readers agree with the cheapest synchronization", "[lab10][task2][pts:2]") {
  check_fixed("iriw_fixed", Needs::fence_sc_2, "gpu", "TODO(2d)",
              "one cuda::atomic_thread_fence(seq_cst, cuda::thread_scope_device) between the two loads of each "
              "reader; the writers need nothing");
}
TEST_CASE("lab10 task2e w2p2w_fixed forbids x=1 y=1 with the cheapest synchronization", "[lab10][task2][pts:2]") {
  check_fixed("2+2w_fixed", Needs::fence_sc_2, "gpu", "TODO(2e)", kFenceSc);
}
TEST_CASE("lab10 task3a mp_same_block hands over at block scope", "[lab10][task3][pts:2]") {
  check_fixed("mp_same_block", Needs::release_acquire, "cta", "TODO(3a)",
              "a release store and an acquire load of the flag at block scope (block_ref<int>)");
}
TEST_CASE("lab10 task3b mp_cross_block hands over between blocks at device scope", "[lab10][task3][pts:2]") {
  check_fixed("mp_cross_block", Needs::release_acquire, "gpu", "TODO(3b)",
              "device scope (device_ref<int>) for every access of x and y, the relaxed accesses of the data too: "
              "block scope covers the threads of one block only, so between blocks a block-scope release/acquire "
              "synchronizes nothing and block-scope accesses of the data race with the other block's");
}

// ---- task 4 -------------------------------------------------------------------------------------------
TEST_CASE("lab10 task4 handoff publishes the data under the relaxed memory model", "[lab10][task4][pts:3]") {
  const int n = 8, want = n * (n + 1) / 2;
  for (const Schedule& s : synclab::lab::schedules(program_exploration(6))) {
    const lab10::HandoffResult r = synclab::lab::run_under(s, [&] { return lab10::run_handoff(n); });
    const std::string cmd = replay("handoff --n 8", s);
    CHECKED_ELSE((r.sum == want && r.reports.empty()))
    FAIL("handoff<<<2, 1>>> (TODO(4)): block 1 summed "
         << r.sum << (r.sum == want ? " (right in this run)" : ", expected " + std::to_string(want))
         << (r.reports.empty() ? "" : "; the simulator reported " + synclab::lab::brief(r.reports.front()))
         << "\n  replay: " << cmd << "\n"
         << (r.reports.empty() ? "" : r.reports.front().text + "\n")
         << "  (volatile orders nothing between the data and the flag: store the flag with release "
            "(device_ref<int>(*flag).store(1, release)) and read it with acquire (.load(acquire)) in the wait loop)");
  }
}

// ---- task 4: the questions ----------------------------------------------------------------------------
// The expected answers are derived here, not written down: the test is the pool's test whose
// threads are handoff's (a writer that stores the data, then the flag; a reader that reads the
// flag, then the data: one data word and the flag stand for the eight words), its PTX verdict is
// ptx_allows_weak's, no count of correct runs proves that an outcome PTX allows never happens,
// and the scope is the narrowest that holds both threads (handoff<<<2, 1>>>: blocks 0 and 1).
const std::vector<std::vector<Op>> kHandoffThreads = {{st('x', 1), st('y', 1)}, {ld('y', 0), ld('x', 1)}};

std::string handoff_test() {
  for (const auto& [name, t] : host_tests())
    if (t.threads == kHandoffThreads) return name;
  return "";
}

// The student's answer to `question`, or a failure that says what the row needs. (The checks below
// use `if`, not CHECKED_ELSE: Catch2 would print the expansion, and with it the expected answer.)
std::string answer_of(const std::string& question, const std::string& choices) {
  const std::string a = lab10::task4_answer(question);
  if (a.empty())
    FAIL("fences.cu, task4_answers_text(): the table has no row '" << question << "' (TODO(4q)): add it back, "
                                                                   << question << " followed by " << choices);
  if (a == "?")
    FAIL("fences.cu, task4_answers_text(): the row '" << question << "' is not answered yet (TODO(4q)): " << choices);
  return a;
}

TEST_CASE("lab10 task4q names the litmus test of the wrong sum and its PTX verdict and what runs prove",
          "[lab10][task4][pts:1]") {
  const std::string test = handoff_test();
  REQUIRE(test == "mp");  // the reference itself: handoff's threads are one of the pool's tests
  REQUIRE(host_outcomes(test, false).count(lab10::litmus_test(test).weak) == 0);  // the wrong sum is weak
  REQUIRE(ptx_allows_weak(test));  // and PTX allows it: what the 10,000 GPU runs never showed
  const std::string given = answer_of("test", "the name of a test of task 1 (mp, sb, ...)");
  if (given != test)
    FAIL_CHECK(
        "test: you answered " << given << ". Write handoff's two threads as a litmus test (block 0: data = 1; "
                              << "flag = 1; block 1: r0 = flag; r1 = data, one data word standing for the eight) "
                              << "and find the test of task 1 with the same threads (README, task 1's tables); the "
                              << "wrong sum is the run where r0 = 1 and r1 = 0");
  const std::string ptx = answer_of("ptx", "allowed or forbidden");
  if (ptx != "allowed")
    FAIL_CHECK("ptx: you answered " << ptx << ", but the PTX memory model allows the weak outcome of " << test
                                    << " (your task 1 row of " << test
                                    << " says what you found; watch it: " << synclab::lab::program_command("lab10")
                                    << " litmus --test " << test << " --memory relaxed)");
  const std::string runs = answer_of("runs", "a number, or none");
  const std::set<std::string> no_count = {"none", "never", "no", "0", "zero"};
  if (!no_count.count(runs))
    FAIL_CHECK(
        "runs: you answered " << runs << ". The wrong sum is an outcome the PTX memory model allows: a run shows one "
                              << "execution, the one this GPU, driver, compiler and load happened to give, so no "
                              << "count of correct runs shows that the allowed outcome never happens (the argument "
                              << "goes in answers.md, question 2)");
}

TEST_CASE("lab10 task4q says what the fix of handoff adds to each side and at which scope", "[lab10][task4][pts:1]") {
  const int writer_block = 0, reader_block = 1;  // handoff<<<2, 1>>>, thread 0 of each
  const std::string want_scope = writer_block == reader_block ? "block" : "device";
  const std::string writer = answer_of("writer", "nothing, release or acquire");
  const std::string reader = answer_of("reader", "nothing, release or acquire");
  const std::string scope = answer_of("scope", "block, device or system");
  if (writer != "release" || reader != "acquire")
    FAIL_CHECK(
        "writer " << writer << ", reader " << reader << ": in the writer the data's stores must not move after the "
                  << "flag's store, and in the reader the data's loads must not move before the flag's load that "
                  << "sees 1. A store orders what came before it for a reader that acquires it (a release); a load "
                  << "orders what comes after it (an acquire). Task 2's mp_fixed is the same hand-over");
  if (scope != want_scope)
    FAIL_CHECK(
        "scope " << scope << ": the writer is thread 0 of block " << writer_block << " and the reader thread 0 of "
                 << "block " << reader_block << "; the narrowest scope that holds both is the one task 3b needed "
                 << "(block scope holds the threads of one block; system scope also holds the host, which takes "
                 << "no part here)");
}

// ---- task 5 -------------------------------------------------------------------------------------------
std::vector<int> expected(lab10::Pattern p, int blocks) {
  std::vector<int> v;
  if (p == lab10::Pattern::last_block) {
    int s = 0;
    for (int b = 1; b <= blocks; ++b) s += 10 * b;
    return {s, blocks};
  }
  for (int b = 0, s = 0; b < blocks; ++b) {
    if (p == lab10::Pattern::look_back) v.push_back(s += b + 1);
    if (p == lab10::Pattern::barrier) v.push_back(100 + (b + 1) % blocks);
    if (p == lab10::Pattern::queue) v.push_back(7 * b + 1);
  }
  return v;
}

// What a pattern's values are, and its size: the queue always runs two blocks, and its size is the
// number of items.
std::string shape(lab10::Pattern p, int size) {
  const std::string n = std::to_string(size);
  switch (p) {
    case lab10::Pattern::last_block: return "last_block<<<" + n + ", 1>>>, values {*out, *ticket}";
    case lab10::Pattern::look_back: return "look_back<<<" + n + ", 1>>>, values sum[0.." + n + ")";
    case lab10::Pattern::barrier: return "barrier_exchange<<<" + n + ", 1>>>, values got[0.." + n + ")";
    case lab10::Pattern::queue: return "queue_pass<<<2, 1>>> with n = " + n + " items, values got[0.." + n + ")";
  }
  return "";
}

std::string text(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return "{" + s + "}";
}

void check_pattern(lab10::Pattern p, const std::string& todo, const std::string& advice) {
  for (int blocks : {2, 3}) {
    const std::vector<int> want = expected(p, blocks);
    for (const Schedule& s : synclab::lab::schedules(program_exploration(4))) {
      const lab10::PatternResult r = synclab::lab::run_under(s, [&] { return lab10::run_pattern(p, blocks); });
      const std::string cmd =
          replay("pattern --pattern " + std::string(lab10::name(p)) + " --blocks " + std::to_string(blocks), s);
      CHECKED_ELSE((r.values == want && r.reports.empty()))
      FAIL(shape(p, blocks) << " (" << todo << "): got " << text(r.values)
                          << (r.values == want ? " (right in this run)" : ", expected " + text(want))
                          << (r.reports.empty() ? "" : "; the simulator reported " + synclab::lab::brief(r.reports.front()))
                          << "\n  replay: " << cmd << "\n" << (r.reports.empty() ? "" : r.reports.front().text + "\n")
                          << "  (" << advice << ")");
    }
  }
}

TEST_CASE("lab10 task5a last_block publishes the partials before the ticket", "[lab10][task5][pts:2]") {
  check_pattern(lab10::Pattern::last_block, "TODO(5a)",
                "the block that takes the last ticket (gridDim.x - 1: atomicAdd returns the count before its own) "
                "sums; the partial must be visible before the ticket is taken, and the last block must acquire what "
                "the others released: take the ticket with device_ref<unsigned>(*ticket).fetch_add(1, "
                "cuda::std::memory_order_acq_rel), or __threadfence() before the atomicAdd and after it in the last "
                "block");
}
TEST_CASE("lab10 task5b look_back publishes each sum before its flag", "[lab10][task5][pts:2]") {
  check_pattern(lab10::Pattern::look_back, "TODO(5b)",
                "raise flag[b] with a release store (device_ref<int>(flag[b]).store(1, release)) and wait on "
                "flag[b - 1] with acquire loads (.load(acquire))");
}
TEST_CASE("lab10 task5c barrier_exchange publishes each slot before the barrier", "[lab10][task5][pts:2]") {
  check_pattern(lab10::Pattern::barrier, "TODO(5c)",
                "every block must wait until all gridDim.x blocks have arrived (the count reaches gridDim.x) and "
                "acquire their slots: arrive with device_ref<unsigned>(*count).fetch_add(1, "
                "cuda::std::memory_order_acq_rel) and wait with acquire loads (.load(acquire)), or __threadfence() "
                "before the atomicAdd and after the wait loop");
}
TEST_CASE("lab10 task5d queue_pass publishes each item before the tail", "[lab10][task5][pts:2]") {
  check_pattern(lab10::Pattern::queue, "TODO(5d)",
                "raise the tail with a release store (device_ref<int>(*tail).store(i + 1, release)) and read it with "
                "acquire loads (.load(acquire)) in the consumer's wait loop");
}

}  // namespace
