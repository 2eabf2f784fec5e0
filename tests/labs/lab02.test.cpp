// Lab 02 (Peterson and bakery): the graded tests. Points are in the tags ([pts:N]); each case is
// graded on its own (the grader runs it in its own process). On the simulator every case explores
// schedules (rr, pct and random seeds under both warp models) with all checkers on: a lock must
// keep mutual exclusion (never two threads inside, no lost counts, no race between critical
// sections) AND make progress (every critical section done, no hang or deadlock) in every explored
// schedule. The broken variants (v1, v2, the orderings) are graded against what exploration finds,
// and exploration is checked first against a host model of the interleavings written here, apart
// from the harness. On a GPU the cases repeat the runs that cannot hang and check the results.
#include <synclab/catch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab02.h"
#include "synclab_lab.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// Runs are tiny (two threads, a few rounds): a lot of seeds stay fast.
// Every lock runs under both memory models: sc (interleavings) and relaxed (also the reorderings
// the PTX memory model allows); the orderings of task 4a, graded against interleavings, under sc.
Exploration exploration(int seeds, bool relaxed = true) {
  Exploration e;
  if (relaxed) e.memories = {"sc", "relaxed"};
  e.pct_seeds = seeds;
  e.random_seeds = seeds;
  e.gpu_runs = 50;
  return e;
}

// The swapped orderings need one thread to stop between its two stores while the other runs
// through its doorway; about one schedule in a hundred does that, so these explore more.
constexpr int kOrderingSeeds = 100;
constexpr int kLockSeeds = 60;

// The harness command that runs one schedule of a case: `args` names the sub-command and the
// options that fix the run (where, rounds, threads); the schedule adds --model/--sched/--seed.
std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab02", args, s); }

bool is_stuck_kind(const Report& r) { return r.kind == "hang" || r.kind == "deadlock" || r.kind == "budget"; }

std::vector<Report> checker_reports(const lab02::LockRun& r) {
  std::vector<Report> out;
  for (const Report& rep : r.reports)
    if (!is_stuck_kind(rep)) out.push_back(rep);
  return out;
}

// A race whose line is in the provided critical section: the lock let two critical sections
// happen without ordering them.
bool critical_sections_raced(const lab02::LockRun& r) {
  for (const Report& rep : r.reports)
    if (rep.kind == "race" && rep.short_where().rfind("lab02_kernels.cuh", 0) == 0) return true;
  return false;
}

std::string order_text(const std::vector<int>& order) {
  std::ostringstream o;
  for (size_t i = 0; i < order.size() && i < 16; ++i) o << (i ? " " : "") << order[i];
  if (order.size() > 16) o << " ...";
  return o.str();
}

// Advice for a race the checker reported in the lock itself (not in the provided critical section of
// lab02_kernels.cuh): the lock's words are shared, and only Ref's accesses are ordered.
std::string lock_word_advice(const std::vector<Report>& reps) {
  for (const Report& rep : reps)
    if (rep.kind == "race" && rep.short_where().rfind("lab02_kernels.cuh", 0) != 0)
      return "\n  (a race on the lock's own words: both threads read and write them, so every access to them "
             "must go through Ref (cuda::atomic_ref, sequentially consistent), as the README's task says; a "
             "plain or volatile access races, and a __syncthreads() cannot order a spin lock)";
  return "";
}

// What was wrong with a run of a lock that must be correct, or "" when nothing was. `replay_line`
// is the command that replays the run.
std::string lock_problem(const lab02::LockRun& r, const std::string& replay_line) {
  std::ostringstream o;
  const std::vector<Report> reps = checker_reports(r);
  if (r.stuck) {
    const std::string how = synclab::lab::stuck_word(r.reports);
    if (how.empty()) o << "the kernel never finished (" << r.failure << ")";
    else o << "the kernel never finished: it " << how << " (the simulator stopped it)";
    for (const Report& rep : r.reports)
      if (is_stuck_kind(rep)) { o << "\n  " << synclab::lab::brief(rep); break; }
    o << "\n  (a correct lock makes progress: some thread that wants in always gets in)";
  } else if (r.overlaps > 0) {
    o << "MUTUAL EXCLUSION BROKEN: " << r.overlaps
      << " time(s) a thread entered the critical section while another was inside";
  } else if (critical_sections_raced(r)) {
    o << "MUTUAL EXCLUSION BROKEN: the critical sections of two threads raced: nothing in the lock "
         "ordered one before the other, first: "
      << synclab::lab::brief(reps.front())
      << "\n  (either both threads got past the lock together: a doorway or a tie-break is missing (the "
         "bakery's choosing flag, which makes a thread wait while another is still taking its number; tickets "
         "compared as (number, id)); or the lock words do not order memory: a volatile or plain flag is not a "
         "release/acquire, so access every lock word through Ref, which is sequentially consistent)";
  } else if (!reps.empty()) {
    o << "the simulator reported " << reps.size() << " problem(s), first: " << synclab::lab::brief(reps.front())
      << lock_word_advice(reps);
  } else if (r.counter != r.entries) {
    o << "the plain counter in the critical section ended at " << r.counter << " after " << r.entries
      << " critical sections: increments were lost, so two threads were inside at once";
  } else if (r.bad_state > 0) {
    o << r.bad_state << " critical section(s) ran while the lock's words said the thread did not hold it "
      << "(words after the run:";
    bool all_zero = true;
    for (int w : r.words) {
      o << " " << w;
      all_zero = all_zero && w == 0;
    }
    o << ")";
    if (all_zero) o << " (the lock never wrote its words: is its TODO done?)";
  } else if (r.entries != r.expected_entries) {
    o << "only " << r.entries << " of " << r.expected_entries << " critical sections ran";
    if (r.entries == 0) o << " (is the lock's TODO done?)";
  } else {
    return "";
  }
  o << "\n  entry order: " << order_text(r.order) << "\n  replay: " << replay_line;
  return o.str();
}

// ---- host model of the two-thread algorithms ------------------------------------------------------
// Each thread is a small program of atomic steps over flag[0..1] and victim (sequentially
// consistent: one step at a time, any interleaving). Every reachable state is visited once.
// A waiting step that finds it must keep waiting changes nothing; a state where every unfinished
// thread is at such a step is stuck for ever.
enum class Algo { v1, v2, ordering0 };  // ordering0 + k: ordering k of lab02.h

// The orderings of task 4 (lab02.h's list), as the model runs them.
struct OrderingShape {
  bool flag_first;         // the doorway stores flag[me] before victim
  bool victim_gets_other;  // the doorway writes other into victim (else me)
  bool waits_on_other;     // the loop waits while victim == other (else while victim == me)
  bool flag_tested_first;  // the loop reads flag[other] first
};
constexpr OrderingShape kShapes[] = {
    {true, false, false, true},  {false, false, false, true}, {false, false, false, false},
    {true, false, false, false}, {true, true, true, true},    {false, true, true, true},
    {true, true, false, true},   {true, true, true, false},
};
constexpr int kShapeCount = int(sizeof kShapes / sizeof kShapes[0]);

// The text of an ordering written out from its shape, in lab02.h's words (checked against the
// harness's kOrderingText, so that the model is the kernel the student reads about).
std::string shape_text(const OrderingShape& sh) {
  const std::string flag = "flag[me]=1; ", victim = std::string("victim=") + (sh.victim_gets_other ? "other" : "me") + "; ";
  const std::string flag_test = "flag[other]", victim_test = std::string("victim == ") + (sh.waits_on_other ? "other" : "me");
  return (sh.flag_first ? flag + victim : victim + flag) + "while (" +
         (sh.flag_tested_first ? flag_test + " && " + victim_test : victim_test + " && " + flag_test) + ")";
}

struct ModelState {
  int pc[2], round[2], reg[2];
  int flag[2], victim;
  bool operator<(const ModelState& o) const {
    auto key = [](const ModelState& s) {
      return std::vector<int>{s.pc[0], s.pc[1], s.round[0], s.round[1], s.reg[0], s.reg[1], s.flag[0], s.flag[1], s.victim};
    };
    return key(*this) < key(o);
  }
};

struct ModelResult {
  bool mutual_exclusion_broken = false;
  bool can_get_stuck = false;
};

constexpr int kInCs = 100;  // pc of the critical section
constexpr int kDone = 200;

// One step of thread t; returns false when the step would only keep waiting.
bool model_step(Algo a, ModelState& s, int t, int rounds) {
  const int me = t, other = 1 - t;
  int& pc = s.pc[t];
  auto next_round = [&] {
    pc = ++s.round[t] == rounds ? kDone : 0;
  };
  if (pc == kInCs) {  // leave and unlock
    if (a == Algo::v2) s.victim = me;
    else s.flag[me] = 0;
    next_round();
    return true;
  }
  switch (a) {
    case Algo::v1:
      if (pc == 0) { s.flag[me] = 1; pc = 1; return true; }
      if (s.flag[other]) return false;
      pc = kInCs;
      return true;
    case Algo::v2:
      if (pc == 0) { s.victim = me; pc = 1; return true; }
      if (s.victim == me) return false;
      pc = kInCs;
      return true;
    default: break;
  }
  const OrderingShape& sh = kShapes[int(a) - int(Algo::ordering0)];
  const int written = sh.victim_gets_other ? other : me, waited = sh.waits_on_other ? other : me;
  if (pc == 0) { if (sh.flag_first) s.flag[me] = 1; else s.victim = written; pc = 1; return true; }
  if (pc == 1) { if (sh.flag_first) s.victim = written; else s.flag[me] = 1; pc = 2; return true; }
  // The loop reads its two words one after the other, stopping early like && does.
  const bool first_holds = sh.flag_tested_first ? s.flag[other] != 0 : s.victim == waited;
  const bool second_holds = sh.flag_tested_first ? s.victim == waited : s.flag[other] != 0;
  if (pc == 2) { pc = first_holds ? 3 : kInCs; return true; }
  if (pc == 3) {
    if (!second_holds) { pc = kInCs; return true; }
    pc = 2;
    return true;
  }
  return false;
}

ModelResult model_check(Algo a, int rounds, unsigned active = 3u) {
  ModelResult res;
  ModelState init{};
  for (int t = 0; t < 2; ++t)
    if (!((active >> t) & 1u)) init.pc[t] = kDone;
  std::set<ModelState> seen{init};
  std::vector<ModelState> work{init};
  while (!work.empty()) {
    ModelState s = work.back();
    work.pop_back();
    if (s.pc[0] == kInCs && s.pc[1] == kInCs) res.mutual_exclusion_broken = true;
    bool any_move = false, all_done = true;
    for (int t = 0; t < 2; ++t) {
      if (s.pc[t] == kDone) continue;
      all_done = false;
      ModelState n = s;
      if (!model_step(a, n, t, rounds)) continue;
      any_move = true;
      if (seen.insert(n).second) work.push_back(n);
    }
    if (!all_done && !any_move) res.can_get_stuck = true;
  }
  // (The Peterson loop's re-reads move between pc 2 and 3, so this stuck check only speaks for
  // v1 and v2; for the orderings the graded question is mutual exclusion.)
  return res;
}

// Peterson's lock (ordering 0) on a machine with a FIFO store buffer per thread (processor
// consistency, seed 003): a store goes into the thread's buffer; a load reads the thread's own
// newest buffered store to that word, else memory; at any time the oldest buffered store of a
// thread may drain to memory. One round each. Returns whether both can be inside at once.
bool peterson_breaks_with_store_buffers() {
  struct Buffered { int var, value; };  // var: 0,1 = flag[0], flag[1]; 2 = victim
  struct S {
    int pc[2];
    int mem[3];
    std::vector<Buffered> buf[2];
    std::vector<int> key() const {
      std::vector<int> k{pc[0], pc[1], mem[0], mem[1], mem[2]};
      for (int t = 0; t < 2; ++t) {
        k.push_back(-1);
        for (const Buffered& b : buf[t]) { k.push_back(b.var); k.push_back(b.value); }
      }
      return k;
    }
  };
  auto load = [](const S& s, int t, int var) {
    for (auto it = s.buf[t].rbegin(); it != s.buf[t].rend(); ++it)
      if (it->var == var) return it->value;
    return s.mem[var];
  };
  S init{};
  std::set<std::vector<int>> seen{init.key()};
  std::vector<S> work{init};
  while (!work.empty()) {
    S s = work.back();
    work.pop_back();
    if (s.pc[0] == 4 && s.pc[1] == 4) return true;
    std::vector<S> next;
    for (int t = 0; t < 2; ++t) {
      const int me = t, other = 1 - t;
      if (!s.buf[t].empty()) {  // drain
        S n = s;
        n.mem[n.buf[t].front().var] = n.buf[t].front().value;
        n.buf[t].erase(n.buf[t].begin());
        next.push_back(n);
      }
      S n = s;
      switch (s.pc[t]) {
        case 0: n.buf[t].push_back({me, 1}); n.pc[t] = 1; next.push_back(n); break;
        case 1: n.buf[t].push_back({2, me}); n.pc[t] = 2; next.push_back(n); break;
        case 2: n.pc[t] = load(s, t, other) != 0 ? 3 : 4; next.push_back(n); break;
        case 3: n.pc[t] = load(s, t, 2) == me ? 2 : 4; next.push_back(n); break;
        default: break;  // 4: inside, stays (we only ask whether both get in)
      }
    }
    for (const S& n : next)
      if (seen.insert(n.key()).second) work.push_back(n);
  }
  return false;
}

// ---- shared checks ----------------------------------------------------------------------------------

// Every explored run of a lock that must be correct: mutual exclusion, progress, no report.
// `args`: the harness sub-command and options that run the same launch (see replay()).
// Said of a run that went wrong under the relaxed memory model when every run under sc was right.
const char* kRelaxedOnly =
    "\n  Every run under sc (interleavings only) was right; this one used SYNCLAB_MEMORY=relaxed, where the "
    "GPU's reorderings happen too. The lock's doorway stores its flag (Peterson's also the victim) and "
    "then loads the other thread's flag: the GPU may perform that load before its own stores are visible "
    "to the other thread (store buffering), and two threads' stores to the victim may take effect in "
    "either order whatever their order in time. Release stores and acquire loads forbid neither. Access the lock words with Ref's "
    "default order, seq_cst (Ref(l->flag[me]).store(1), Ref(l->flag[other]).load()): all seq_cst "
    "accesses take effect in one order that every thread agrees on.";

// Follows the problems of an exploration's runs in order (sc runs come first) and adds
// kRelaxedOnly to a relaxed run's problem when no sc run had one.
struct RelaxedOnlyNote {
  bool sc_failed = false;
  std::string operator()(std::string problem, const Schedule& s) {
    if (problem.empty()) return problem;
    if (s.memory == "sc") sc_failed = true;
    else if (s.memory == "relaxed" && !sc_failed) problem += kRelaxedOnly;
    return problem;
  }
};

// more(r, s): what to add to a problem the run had under schedule s ("" when nothing).
template <class Run>
void require_correct_everywhere(const std::string& what, const std::string& args, const Exploration& e, Run run,
                                const std::function<std::string(const lab02::LockRun&, const Schedule&)>& more = {}) {
  int runs = 0;
  RelaxedOnlyNote note;
  for (const Schedule& s : synclab::lab::schedules(e)) {
    lab02::LockRun r = synclab::lab::run_under(s, [&] { return run(s); });
    ++runs;
    std::string problem = note(lock_problem(r, replay(args, s)), s);
    if (!problem.empty() && more) problem += more(r, s);
    CHECKED_ELSE(problem.empty()) FAIL(what << ", run " << runs << ":\n  " << problem);
  }
}

// ---- task 1: v1 -------------------------------------------------------------------------------------

TEST_CASE("lab02 task1 v1 keeps mutual exclusion and lets a thread in when it is alone", "[lab02][task1][pts:3]") {
  // Alone: thread 0 runs all its rounds, then thread 1 (two launches on one lock).
  require_correct_everywhere("v1, thread 0 alone then thread 1 alone, 3 rounds each", "v1 --where warps --rounds 3", exploration(4),
                             [](const Schedule&) {
                               lab02::LockRun r = lab02::run_two_thread_sequence(lab02::TwoThreadKernel::v1, lab02::Where::warps, 3);
                               if (!r.stuck && r.words.size() == 3 && (r.words[0] || r.words[1])) r.bad_state = std::max(r.bad_state, 1);
                               return r;
                             });
  if (!synclab::lab::on_simulator()) return;  // together, v1 may deadlock for ever on a GPU
  // Together: the runs that finish must keep mutual exclusion; a stuck run is allowed (task: v1
  // can deadlock), but it must be stuck in the lock, with nobody inside.
  // Lane 0 of two warps of one block, and two blocks (a block-scope flag does not reach the other).
  for (const lab02::Where where : {lab02::Where::warps, lab02::Where::blocks}) {
    const std::string args = std::string("v1 --where ") + lab02::name(where) + " --rounds 2";
    RelaxedOnlyNote note;
    for (const Schedule& s : synclab::lab::schedules(exploration(where == lab02::Where::blocks ? kLockSeeds / 2 : kLockSeeds))) {
      lab02::LockRun r = synclab::lab::run_under(s, [&] { return lab02::run_two_thread(lab02::TwoThreadKernel::v1, where, 2); });
      if (r.stuck) {  // allowed (v1 can deadlock): the checks below are for the runs that finish
        std::vector<Report> reps = checker_reports(r);
        if (!reps.empty())
          FAIL("v1, both threads: " << synclab::lab::brief(reps.front()) << lock_word_advice(reps)
                                    << "\n  replay: " << replay(args, s));
        continue;
      }
      const std::string problem = note(lock_problem(r, replay(args, s)), s);
      if (!problem.empty()) FAIL("v1, both threads (" << lab02::name(where) << "), 2 rounds each:\n  " << problem);
    }
  }
}

TEST_CASE("lab02 task1 v1 can deadlock and exploration finds the schedule", "[lab02][task1][pts:2]") {
  if (!synclab::lab::on_simulator()) {
    // On a GPU only the run that cannot hang: v1 must still raise and lower its flag.
    lab02::LockRun r = lab02::run_two_thread_sequence(lab02::TwoThreadKernel::v1, lab02::Where::blocks, 2);
    REQUIRE(lock_problem(r, "GPU run 1") == "");
    return;
  }
  const ModelResult model = model_check(Algo::v1, 2);
  INFO("host model of v1 (every interleaving of two threads, 2 rounds): "
       << (model.can_get_stuck ? "can get stuck" : "never stuck") << ", mutual exclusion "
       << (model.mutual_exclusion_broken ? "broken" : "kept"));
  REQUIRE(model.can_get_stuck);
  REQUIRE_FALSE(model.mutual_exclusion_broken);
  int stuck = 0, runs = 0;
  std::string where;
  for (const Schedule& s : synclab::lab::schedules(exploration(8))) {
    lab02::LockRun r = synclab::lab::run_under(s, [&] {
      return lab02::run_two_thread(lab02::TwoThreadKernel::v1, lab02::Where::warps, 2);
    });
    ++runs;
    if (r.stuck && !stuck++)
      for (const Report& rep : r.reports)
        if (is_stuck_kind(rep)) where = synclab::lab::brief(rep) + "\n  replay: " + replay("v1 --where warps --rounds 2", s);
  }
  INFO("v1 with both threads at once (lane 0 of two warps), " << runs << " explored runs: " << stuck
       << " stuck" << (where.empty() ? "" : ", first: " + where)
       << "\n  explore them: " << synclab::lab::program_command("lab02") << " v1 --where warps --rounds 2 --seeds 8");
  // Both flags up, both threads waiting for the other: your v1 must be able to get there.
  CHECKED_ELSE(stuck > 0)
    FAIL_CHECK("no explored run of v1 got stuck (" << runs << " runs): in v1 each thread raises its own flag and "
               "then waits while the other's flag is up, so two threads at once can both wait for ever "
               "(is v1_lock's TODO done?)");
  CHECKED_ELSE(stuck < runs)
    FAIL_CHECK("every explored run of v1 got stuck (" << runs << " runs): a thread whose partner's flag is down "
               "must get in");
}

// ---- task 2: v2 -------------------------------------------------------------------------------------

TEST_CASE("lab02 task2 v2 keeps mutual exclusion when both threads take it once", "[lab02][task2][pts:2]") {
  const ModelResult model = model_check(Algo::v2, 1);
  INFO("host model of v2, one round each: " << (model.can_get_stuck ? "can get stuck" : "never stuck"));
  REQUIRE_FALSE(model.can_get_stuck);
  REQUIRE_FALSE(model.mutual_exclusion_broken);
  require_correct_everywhere("v2, both threads (lane 0 of two warps), one round each", "v2 --where warps", exploration(kLockSeeds),
                             [](const Schedule&) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, lab02::Where::warps, 1); });
  require_correct_everywhere("v2, both threads (two blocks), one round each", "v2 --where blocks", exploration(kLockSeeds / 2),
                             [](const Schedule&) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, lab02::Where::blocks, 1); });
}

TEST_CASE("lab02 task2 v2 lacks progress - a thread alone waits for ever", "[lab02][task2][pts:2]") {
  if (!synclab::lab::on_simulator()) {
    // A GPU would wait for ever: check the run that cannot hang, with v2's words.
    require_correct_everywhere("v2, both threads in two blocks, one round each", "v2 --where blocks", exploration(4),
                               [](const Schedule&) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, lab02::Where::blocks, 1); });
    return;
  }
  REQUIRE(model_check(Algo::v2, 1, 1u).can_get_stuck);
  for (const Schedule& s : synclab::lab::schedules(exploration(3))) {
    lab02::LockRun r = synclab::lab::run_under(s, [&] {
      return lab02::run_two_thread(lab02::TwoThreadKernel::v2, lab02::Where::warps, 1, 1u);
    });
    INFO("v2 with thread 0 alone, replay: " << replay("v2 --where warps", s));
    CHECKED_ELSE(!(!r.stuck))
      FAIL("thread 0 alone got through v2_lock (" << r.entries << " critical section(s)): in v2 a thread "
           "waits until the other one makes itself the victim, so alone it must wait for ever");
    // The simulator must say so (hang at the line of the wait), and nothing else.
    bool hang_reported = false;
    for (const Report& rep : r.reports) hang_reported |= is_stuck_kind(rep) && !rep.where.empty();
    INFO("reports: " << (r.reports.empty() ? std::string("none") : synclab::lab::brief(r.reports.front())));
    CHECK(hang_reported);
    CHECK(checker_reports(r).empty());
  }
}

// ---- task 3: Peterson -------------------------------------------------------------------------------

TEST_CASE("lab02 task3a peterson keeps mutual exclusion and progress for threads in different blocks",
          "[lab02][task3][pts:3]") {
  require_correct_everywhere("peterson, two blocks of one thread, 2 rounds each", "peterson --where blocks --rounds 2",
                             exploration(kLockSeeds),
                             [](const Schedule&) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson, lab02::Where::blocks, 2); });
}

TEST_CASE("lab02 task3a peterson keeps mutual exclusion and progress for threads in different warps",
          "[lab02][task3][pts:3]") {
  require_correct_everywhere("peterson, lane 0 of two warps, 2 rounds each", "peterson --where warps --rounds 2",
                             exploration(kLockSeeds),
                             [](const Schedule&) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson, lab02::Where::warps, 2); });
  require_correct_everywhere("peterson, thread 0 alone then thread 1 alone", "peterson --where warps --rounds 2",
                             exploration(2), [](const Schedule&) {
    return lab02::run_two_thread_sequence(lab02::TwoThreadKernel::peterson, lab02::Where::warps, 2);
  });
}

TEST_CASE("lab02 task3b peterson for two lanes of one warp completes under its and gets stuck under lockstep",
          "[lab02][task3][pts:2]") {
  RelaxedOnlyNote note;
  // (30 seeds: under its the explored schedules sometimes split the converged lanes, so that a
  // lock whose lanes break it only when they do not run together is caught)
  for (const Schedule& s : synclab::lab::schedules(exploration(kLockSeeds / 2))) {
    lab02::LockRun r = synclab::lab::run_under(s, [&] {
      return lab02::run_two_thread(lab02::TwoThreadKernel::peterson, lab02::Where::lanes, 2);
    });
    const std::string cmd = replay("peterson --where lanes --rounds 2", s);
    INFO("peterson_lock by lanes 0 and 1 of one warp, replay: " << cmd);
    if (s.model != "lockstep") {  // its, or a GPU (Volta and later schedule lanes independently)
      const std::string problem = note(lock_problem(r, cmd), s);
      if (!problem.empty()) FAIL(problem);
      continue;
    }
    // Lockstep: the lane that gets in leaves the loop and waits at the reconvergence point for
    // its warp-mate, which spins on a flag only the waiting lane would lower.
    CHECKED_ELSE(!(!r.stuck))
      FAIL("under lockstep the two lanes finished (" << r.entries << " critical sections, " << r.overlaps
           << " overlaps): with a lock that waits, the lane that wins must wait at the reconvergence point "
              "while the other spins; did your peterson_lock wait at all?");
    const std::vector<Report> reps = checker_reports(r);
    if (!reps.empty()) FAIL("unexpected report: " << synclab::lab::brief(reps.front()));
  }
}

TEST_CASE("lab02 task3c peterson_lanes_kernel completes under both warp models", "[lab02][task3][pts:3]") {
  require_correct_everywhere(
      "peterson_lanes_kernel, lanes 0 and 1 of one warp, 3 rounds each", "peterson-lanes --rounds 3",
      exploration(kLockSeeds / 2),
      [](const Schedule&) {
        return lab02::run_two_thread(lab02::TwoThreadKernel::peterson_lanes, lab02::Where::lanes, 3);
      },
      [](const lab02::LockRun& r, const Schedule& s) -> std::string {
        if (!r.stuck || s.model != "lockstep") return "";
        return std::string("\n  (") + lab02::kLanesLockstepAdvice + ")";
      });
}

// ---- task 4: the orderings ----------------------------------------------------------------------------

TEST_CASE("lab02 task4a verdicts on the four orderings of peterson agree with exploration", "[lab02][task4][pts:4]") {
  // The messages say which verdict disagrees and how to watch the ordering run, not what the
  // right verdict is: that is the task. The four orderings are the student's (SYNCLAB_STUDENT).
  REQUIRE(kShapeCount == lab02::kOrderings);
  for (int o = 0; o < lab02::kOrderings; ++o)
    REQUIRE(shape_text(kShapes[o]) == lab02::kOrderingText[o]);  // (the model is the kernel the text names)
  const std::string student = synclab::lab::student_id();
  const std::vector<int> mine = lab02::task4a_orderings(student);
  REQUIRE(mine.size() == 4);
  INFO("task 4a is graded on orderings " << mine[0] << ", " << mine[1] << ", " << mine[2] << " and " << mine[3]
       << (student.empty() ? std::string(" (no student id)") : " for student id '" + student + "'"));
  // Every ordering's kernel is explored (each student's four come from all eight); only the
  // student's four verdicts are graded.
  for (int o = 0; o < lab02::kOrderings; ++o) {
    const ModelResult model = model_check(Algo(int(Algo::ordering0) + o), 2);
    const lab02::Verdict want = model.mutual_exclusion_broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
    INFO("ordering " << o << ": " << lab02::kOrderingText[o]);
    if (synclab::lab::on_simulator()) {
      int broken = 0, runs = 0;
      std::string first;
      for (const Schedule& s : synclab::lab::schedules(exploration(kOrderingSeeds, false))) {
        lab02::LockRun r = synclab::lab::run_under(s, [&] { return lab02::run_ordering(o, lab02::Where::warps, 2); });
        ++runs;
        if (!r.stuck && (r.overlaps > 0 || critical_sections_raced(r)) && !broken++)
          first = replay("orderings --ordering " + std::to_string(o) + " --rounds 2", s);
      }
      const lab02::Verdict found = broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
      // Exploration must agree with the host model of every interleaving, or the comparison
      // below proves nothing.
      CHECKED_ELSE(found == want)
        FAIL("exploration (" << runs << " runs) found " << lab02::name(found)
             << (broken ? " in " + std::to_string(broken) + " runs, first: " + first : std::string())
             << ", but the host model of every interleaving (2 rounds) says " << lab02::name(want)
             << ": the simulator is at fault, not you");
    }
    if (std::find(mine.begin(), mine.end(), o) == mine.end()) continue;
    const lab02::Verdict yours = lab02::ordering_verdict(o);
    CHECKED_ELSE((yours == want))  // FAIL_CHECK: every ordering's verdict is reported
      FAIL_CHECK("your verdict (ordering_verdict(" << o << ") in two_thread_locks.cu): " << lab02::name(yours)
           << " -- it disagrees with what exploring every schedule finds for this ordering\n"
              "  watch it: "
           << synclab::lab::program_command("lab02") << " orderings --ordering " << o << " --rounds 2");
  }
}

TEST_CASE("lab02 task4b verdict on peterson with store buffers agrees with a store-buffer model", "[lab02][task4][pts:1]") {
  const lab02::Verdict want = peterson_breaks_with_store_buffers() ? lab02::Verdict::breaks : lab02::Verdict::safe;
  const lab02::Verdict yours = lab02::peterson_with_store_buffers();
  if (synclab::lab::on_simulator()) {
    // The simulator's relaxed memory model must agree with the host model: Peterson's lock with
    // the orders a store buffer keeps (release stores, acquire loads), explored under relaxed.
    Exploration e = exploration(kLockSeeds);
    e.memories = {"relaxed"};
    int broken = 0, runs = 0;
    for (const Schedule& s : synclab::lab::schedules(e)) {
      lab02::LockRun r = synclab::lab::run_under(s, [&] { return lab02::run_store_buffered(lab02::Where::blocks, 2); });
      ++runs;
      if (r.overlaps > 0 || r.counter != r.entries || critical_sections_raced(r)) ++broken;
    }
    const lab02::Verdict found = broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
    CHECKED_ELSE(found == want)
      FAIL("exploring Peterson's lock with release stores and acquire loads under the relaxed memory model ("
           << runs << " runs) found " << lab02::name(found) << ", but the store-buffer model says "
           << lab02::name(want) << ": the simulator's memory model is wrong here, not your code");
  }
  // As in 4a, the message does not say the right verdict.
  CHECKED_ELSE((yours == want))
    FAIL("your verdict (peterson_with_store_buffers in two_thread_locks.cu): " << lab02::name(yours)
         << " -- it disagrees with a model of Peterson's lock where each thread's stores wait in a FIFO store "
            "buffer\n  (reason it out: README task 4b and \"What the hardware may reorder\"; then check it on the simulator: "
            << synclab::lab::program_command("lab02") << " orderings)");
}

// ---- task 5: the bakery --------------------------------------------------------------------------------

TEST_CASE("lab02 task5 bakery keeps mutual exclusion and progress for 3 warps", "[lab02][task5][pts:3]") {
  require_correct_everywhere("bakery, lane 0 of 3 warps, 2 rounds each", "bakery --threads 3 --where warps --rounds 2",
                             exploration(kLockSeeds / 2),
                             [](const Schedule&) { return lab02::run_bakery(3, lab02::Where::warps, 2); });
}

TEST_CASE("lab02 task5 bakery keeps mutual exclusion and progress for 4 blocks and for 2 threads",
          "[lab02][task5][pts:2]") {
  require_correct_everywhere("bakery, 4 blocks of one thread, 2 rounds each", "bakery --threads 4 --where blocks --rounds 2",
                             exploration(kLockSeeds / 4),
                             [](const Schedule&) { return lab02::run_bakery(4, lab02::Where::blocks, 2); });
  require_correct_everywhere("bakery, lane 0 of 2 warps, 3 rounds each", "bakery --threads 2 --where warps --rounds 3",
                             exploration(kLockSeeds / 4),
                             [](const Schedule&) { return lab02::run_bakery(2, lab02::Where::warps, 3); });
}

}  // namespace
