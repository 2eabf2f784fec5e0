// Lab 02 (Peterson and bakery): the harness program (provided). One sub-command per task; each
// explores schedules, checks mutual exclusion and progress in every run, and says what went wrong.
//
//   lab02 v1             [--where blocks|warps] [--rounds R]
//   lab02 v2             [--where blocks|warps]
//   lab02 peterson       [--where blocks|warps|lanes] [--rounds R]
//   lab02 peterson-lanes [--rounds R]
//   lab02 orderings      [--ordering K | --store-buffers] [--rounds R]
//   lab02 bakery         [--threads N] [--where blocks|warps|lanes] [--rounds R]
//   lab02 message-passing [--fence] [--show stale|any|bad|good --trace FILE]   (not graded)
//   lab02 all            every task's check
//   (the six lock commands also take --show any|bad|good|stuck|overlap --trace FILE)
//   (and the exploration options of synclab_lab.h: --seeds N, --model M, --sched P, --seed S, ...)
//
// On the simulator each command explores what the task's graded tests explore (the same places,
// rounds and schedules: rr, then pct and random seeds, both warp models); every bad run is named
// by the command that replays it. On a GPU it repeats the runs that cannot hang (v1 and v2 only
// where they cannot). --trace records one run for synclab-viz: the first explored run that --show
// names (synclab_lab.h).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "lab02.h"
#include "synclab_lab.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

// The graded tests' exploration (tests/labs/lab02.test.cpp): seeds of pct and of random.
constexpr int kLockSeeds = 60;      // a lock that must be correct, two threads
constexpr int kOrderingSeeds = 100;  // the orderings: about one schedule in a hundred breaks one

// The locks run under both memory models (a lock must hold where the GPU reorders too); the
// orderings, whose verdicts are about interleavings, under sc.
Exploration exploration(const Args& a, int default_seeds) {
  return synclab::lab::exploration_from(a, default_seeds, 20, {"sc", "relaxed"});
}
Exploration exploration_sc(const Args& a, int default_seeds) { return synclab::lab::exploration_from(a, default_seeds); }

// The command that replays one run of this program.
std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab02", args, s); }

lab02::Where where_of(const Args& a, const std::string& fallback) {
  std::string w = a.get("where", fallback);
  if (w == "blocks") return lab02::Where::blocks;
  if (w == "warps") return lab02::Where::warps;
  if (w == "lanes") return lab02::Where::lanes;
  throw std::invalid_argument("--where is blocks, warps or lanes, not '" + w + "'");
}

std::string where_arg(lab02::Where w) { return std::string(" --where ") + lab02::name(w); }

using synclab::lab::print_reports;

// What exploring one lock found. The first_* strings are the commands that replay those runs.
struct Summary {
  int runs = 0, completed = 0, stuck = 0, deadlocked = 0, hung = 0, overlapping = 0, bad_state = 0, lost = 0,
      unordered = 0, stuck_lockstep = 0;
  std::string first_stuck, first_overlap, first_bad, first_lost, first_report, first_unordered;
  std::vector<Report> checker_reports;  // reports other than hang/deadlock
  std::vector<Report> stuck_reports;
  std::vector<Schedule> schedules;
};

// Runs `run` under every schedule of `ss`; `args` is the command line (sub-command and options
// that fix the run) that replays one of them with a schedule's options added. `a` carries
// --trace/--show (pass an empty Args to record nothing).
template <class RunFn>
Summary explore(const std::vector<Schedule>& ss, const std::string& args, RunFn run, const Args& a) {
  Summary s;
  s.schedules = ss;
  // stuck: a run that never finished; overlap: one whose critical sections overlapped.
  const synclab::lab::TraceChoice trace(a, "any", {"stuck", "overlap"});
  for (const Schedule& sc : ss) {
    lab02::LockRun r = synclab::lab::run_under(sc, [&] { return run(nullptr); });
    ++s.runs;
    for (const Report& rep : r.reports) {
      bool stuck_kind = rep.kind == "hang" || rep.kind == "deadlock" || rep.kind == "budget";
      (stuck_kind ? s.stuck_reports : s.checker_reports).push_back(rep);
      if (!stuck_kind && s.first_report.empty()) s.first_report = replay(args, sc);
    }
    // A race inside the critical section: the two threads' critical sections were not ordered
    // by the lock, so they could have overlapped even if in this run they did not.
    bool cs_race = false;
    for (const Report& rep : r.reports)
      cs_race |= rep.kind == "race" && rep.short_where().rfind("lab02_kernels.cuh", 0) == 0;
    if (cs_race && !s.unordered++) s.first_unordered = replay(args, sc);
    if (r.stuck) {
      if (!s.stuck++) s.first_stuck = replay(args, sc);
      s.stuck_lockstep += sc.model == "lockstep";
      const std::string how = synclab::lab::stuck_word(r.reports);
      s.deadlocked += how == "deadlocked";
      s.hung += how == "hung (spinning)";
    } else {
      if (r.completed()) ++s.completed;
      if (r.overlaps > 0 && !s.overlapping++) s.first_overlap = replay(args, sc);
      if (r.bad_state > 0 && !s.bad_state++) s.first_bad = replay(args, sc);
      if (r.counter != r.entries && !s.lost++) s.first_lost = replay(args, sc);
    }
    const bool overlapped = !r.stuck && r.overlaps > 0;
    const bool failed = r.stuck || overlapped || r.bad_state > 0 || r.counter != r.entries || cs_race;
    if (trace.wants(failed, r.stuck ? "stuck" : overlapped ? "overlap" : "")) {
      trace.recording(sc);
      synclab::lab::apply(sc);
      run(trace.file().c_str());
    }
  }
  return s;
}

void print_summary(const Summary& s) {
  if (s.schedules.empty()) return;
  std::printf("  %s: %d completed every critical section, %d stuck\n", synclab::lab::describe(s.schedules).c_str(),
              s.completed, s.stuck);
  if (s.stuck) {
    std::string how;
    if (s.deadlocked) how += std::to_string(s.deadlocked) + " deadlocked";
    if (s.hung) how += (how.empty() ? "" : ", ") + std::to_string(s.hung) + " hung (spinning)";
    std::printf("  stuck in %d runs (%s), first:\n    %s\n", s.stuck, how.empty() ? "hang or deadlock" : how.c_str(),
                s.first_stuck.c_str());
  }
  if (s.overlapping)
    std::printf("  MUTUAL EXCLUSION BROKEN: two threads inside at once in %d runs, first:\n    %s\n", s.overlapping,
                s.first_overlap.c_str());
  if (s.unordered)
    std::printf("  MUTUAL EXCLUSION BROKEN: the critical sections of two threads raced (nothing in the lock\n"
                "  ordered them) in %d runs, first:\n    %s\n", s.unordered, s.first_unordered.c_str());
  if (s.lost) std::printf("  the plain counter lost increments in %d runs, first:\n    %s\n", s.lost, s.first_lost.c_str());
  if (s.bad_state)
    std::printf("  the lock's words were not what the algorithm says while a thread held it, in %d runs, first:\n    %s\n",
                s.bad_state, s.first_bad.c_str());
  if (!s.stuck_reports.empty()) {
    std::printf("  where the threads were stuck:\n");
    print_reports(s.stuck_reports, 2);
  }
  if (!s.checker_reports.empty()) {
    std::printf("  the checkers reported (first in: %s):\n", s.first_report.c_str());
    print_reports(s.checker_reports);
  }
}

bool safe_runs(const Summary& s) { return !s.overlapping && !s.lost && !s.bad_state && s.checker_reports.empty(); }

const Args& no_trace() {
  static const Args none(0, nullptr, 0);
  return none;
}

// ---- v1 -------------------------------------------------------------------------------------------
// Graded: alone 3 rounds (4 seeds); together 2 rounds, two warps (60 seeds) and two blocks (30 seeds;
// some run must get stuck, not all).
bool cmd_v1(const Args& a) {
  const lab02::Where where = where_of(a, "warps");
  const int alone_rounds = int(a.num("rounds", 3)), rounds = int(a.num("rounds", 2));
  const std::string args = "v1" + where_arg(where) + " --rounds ";
  bool ok = true;
  std::printf("v1 (flags), one thread alone, then the other, %d rounds each:\n", alone_rounds);
  auto alone = [&](const char*) { return lab02::run_two_thread_sequence(lab02::TwoThreadKernel::v1, where, alone_rounds); };
  Summary sa = explore(synclab::lab::schedules(exploration(a, 4)), args + std::to_string(alone_rounds), alone, no_trace());
  print_summary(sa);
  ok &= safe_runs(sa) && sa.completed == sa.runs;
  if (sa.completed != sa.runs) std::printf("  a thread alone must always get in (progress when alone)\n");
  if (!synclab::lab::on_simulator()) {
    std::printf("  (on a GPU the two threads are not run together: v1 can deadlock for ever)\n");
    return ok;
  }
  // (without --where: two warps of one block, then two blocks, where a block-scope flag or victim
  // no longer reaches the other thread)
  for (const lab02::Where at : a.has("where") ? std::vector<lab02::Where>{where}
                                                : std::vector<lab02::Where>{lab02::Where::warps, lab02::Where::blocks}) {
    const std::string at_args = "v1" + where_arg(at) + " --rounds ";
    std::printf("v1, both threads at once (%s), %d rounds each:\n", lab02::name(at), rounds);
    Summary s = explore(synclab::lab::schedules(exploration(a, at == lab02::Where::blocks ? kLockSeeds / 2 : kLockSeeds)),
                        at_args + std::to_string(rounds),
                        [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::v1, at, rounds, 3u, t); }, a);
    print_summary(s);
    ok &= safe_runs(s) && s.stuck > 0 && s.stuck < s.runs;
    if (!s.stuck) std::printf("  expected some schedule to deadlock: both flags up, both threads waiting\n");
    if (s.stuck && s.stuck == s.runs) std::printf("  expected some schedule to finish: every explored run got stuck\n");
  }
  return ok;
}

// ---- v2 -------------------------------------------------------------------------------------------
// Graded: both threads once, two warps (60 seeds) and two blocks (30 seeds); thread 0 alone must get
// stuck (3 seeds).
bool cmd_v2(const Args& a) {
  const lab02::Where where = where_of(a, "warps");
  const std::string args = "v2" + where_arg(where);
  bool ok = true;
  for (const lab02::Where at : a.has("where") ? std::vector<lab02::Where>{where}
                                                : std::vector<lab02::Where>{lab02::Where::warps, lab02::Where::blocks}) {
    std::printf("v2 (victim), both threads at once (%s), one round each:\n", lab02::name(at));
    Summary s1 = explore(synclab::lab::schedules(exploration(a, at == lab02::Where::blocks ? kLockSeeds / 2 : kLockSeeds)),
                         "v2" + where_arg(at),
                         [&](const char*) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, at, 1); }, no_trace());
    print_summary(s1);
    ok &= safe_runs(s1) && s1.completed == s1.runs;
  }
  if (!synclab::lab::on_simulator()) {
    std::printf("  (on a GPU v2 is not run alone or for more rounds: it can wait for ever)\n");
    return ok;
  }
  std::printf("v2, thread 0 alone:\n");
  Summary sa = explore(synclab::lab::schedules(exploration(a, 3)), args,
                       [&](const char*) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, where, 1, 1u); }, no_trace());
  print_summary(sa);
  ok &= sa.stuck == sa.runs && sa.checker_reports.empty();
  if (sa.stuck != sa.runs) std::printf("  expected: alone, a thread waits for ever (nobody else will be the victim)\n");
  std::printf("v2, both threads, 2 rounds each (not graded: look at what happens):\n");
  Summary s2 = explore(synclab::lab::schedules(exploration(a, 8)), args,
                       [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, where, 2, 3u, t); }, a);
  print_summary(s2);
  ok &= safe_runs(s2);
  if (!s2.stuck) std::printf("  (this exploration found no run stuck; try --seeds 100: one thread can finish while the other\n"
                             "   still has a round to go, and then nobody is left to be the victim)\n");
  return ok;
}

// ---- Peterson -----------------------------------------------------------------------------------------
// Graded: blocks and warps 2 rounds (60 seeds), warps also each thread alone (2 seeds); lanes 2
// rounds (30 seeds): completes under its, stuck under lockstep.
bool peterson_at(const Args& a, lab02::Where where) {
  const int rounds = int(a.num("rounds", 2));
  const bool lanes = where == lab02::Where::lanes;
  const std::string args = "peterson" + where_arg(where) + " --rounds " + std::to_string(rounds);
  std::printf("peterson, two threads (%s), %d rounds each:\n", lab02::name(where), rounds);
  Summary s = explore(synclab::lab::schedules(exploration(a, lanes ? kLockSeeds / 2 : kLockSeeds)), args,
                      [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson, where, rounds, 3u, t); }, a);
  print_summary(s);
  if (!lanes || !synclab::lab::on_simulator()) {
    bool ok = safe_runs(s) && s.completed == s.runs;
    if (!ok) std::printf("  expected: every run completes, one thread inside at a time, no reports\n");
    if (where == lab02::Where::warps) {
      std::printf("peterson, thread 0 alone then thread 1 alone (warps), %d rounds each:\n", rounds);
      Summary sa = explore(synclab::lab::schedules(exploration(a, 2)), args,
                           [&](const char*) { return lab02::run_two_thread_sequence(lab02::TwoThreadKernel::peterson, where, rounds); },
                           no_trace());
      print_summary(sa);
      const bool alone_ok = safe_runs(sa) && sa.completed == sa.runs;
      if (!alone_ok) std::printf("  expected: a thread alone always gets in (progress when alone)\n");
      ok &= alone_ok;
    }
    return ok;
  }
  // Two lanes of one warp: lockstep runs them together, so the lane that wins waits at the
  // reconvergence point after the loop for a warp-mate that spins: stuck under lockstep only.
  int its_runs = 0;
  for (const Schedule& sc : s.schedules) its_runs += sc.model == "its";
  std::printf("  (two lanes of one warp: expected to complete under its and to get stuck under lockstep)\n");
  return safe_runs(s) && s.completed == its_runs && s.stuck == s.runs - its_runs;
}

bool cmd_peterson(const Args& a) {
  if (a.has("where")) return peterson_at(a, where_of(a, "warps"));
  return peterson_at(a, lab02::Where::blocks) & peterson_at(a, lab02::Where::warps) & peterson_at(a, lab02::Where::lanes);
}

// Graded: 3 rounds, 30 seeds.
bool cmd_peterson_lanes(const Args& a) {
  const int rounds = int(a.num("rounds", 3));
  const std::string args = "peterson-lanes --rounds " + std::to_string(rounds);
  std::printf("peterson_lanes_kernel, lanes 0 and 1 of one warp, %d rounds each:\n", rounds);
  Summary s = explore(synclab::lab::schedules(exploration(a, kLockSeeds / 2)), args,
                      [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson_lanes, lab02::Where::lanes, rounds, 3u, t); }, a);
  print_summary(s);
  bool ok = safe_runs(s) && s.completed == s.runs;
  if (!ok) std::printf("  expected: every run completes under both warp models, one lane inside at a time\n");
  if (s.stuck_lockstep) std::printf("  (%s)\n", lab02::kLanesLockstepAdvice);
  return ok;
}

// ---- orderings --------------------------------------------------------------------------------------
// Graded: lane 0 of two warps, 2 rounds, 100 seeds per ordering; the four orderings of the
// student id (SYNCLAB_STUDENT), 0-3 without one.
bool cmd_orderings(const Args& a) {
  std::vector<int> which = lab02::task4a_orderings(synclab::lab::student_id());
  const bool store_buffers_only = a.has("store-buffers");
  if (store_buffers_only && a.has("ordering")) throw std::invalid_argument("give --ordering or --store-buffers, not both");
  if (!store_buffers_only && !a.has("ordering")) {
    std::string names;
    for (int o : which) names += (names.empty() ? "" : ", ") + std::to_string(o);
    synclab::lab::print_graded_cases("task 4a is graded on orderings " + names, "four");
  }
  if (store_buffers_only) which.clear();
  if (a.has("ordering")) {
    const int o = int(a.num("ordering", 0));
    if (o < 0 || o >= lab02::kOrderings) throw std::invalid_argument("--ordering is a number from 0 to 7");
    which = {o};
  }
  bool ok = true;
  if (!synclab::lab::on_simulator()) {
    // A GPU shows one interleaving per run and rarely the bad one: the verdicts need exploration.
    for (int o : which)
      std::printf("ordering %d: %s\n  your verdict: %s (check it on the simulator: lab02 orderings)\n", o,
                  lab02::kOrderingText[o], lab02::name(lab02::ordering_verdict(o)));
    for (int o : which) ok &= lab02::ordering_verdict(o) != lab02::Verdict::unknown;
    return ok;
  }
  const int rounds = int(a.num("rounds", 2));
  for (int o : which) {
    // One thread must stop between its two stores while the other runs through its doorway:
    // about one schedule in a hundred does, so this explores 100 seeds of each scheduler.
    std::vector<Schedule> ss = synclab::lab::schedules(exploration_sc(a, kOrderingSeeds));
    std::printf("ordering %d: %s\n", o, lab02::kOrderingText[o]);
    const std::string args = "orderings --ordering " + std::to_string(o) + " --rounds " + std::to_string(rounds);
    Summary s = explore(ss, args, [&](const char* t) { return lab02::run_ordering(o, lab02::Where::warps, rounds, t); }, a);
    print_summary(s);
    const bool broken = s.overlapping || s.unordered;
    const lab02::Verdict found = broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
    const lab02::Verdict yours = lab02::ordering_verdict(o);
    std::printf("  exploration: %s%s; your verdict (ordering_verdict): %s -> %s\n", lab02::name(found),
                broken ? "" : " in every explored run", lab02::name(yours),
                yours == found ? "agrees" : "does not agree");
    if (!broken && ss.size() < size_t(2 * (1 + 2 * kOrderingSeeds)))
      std::printf("  (only %zu runs: the graded test explores %d, --seeds %d under both models; a safe verdict from "
                  "fewer runs proves little)\n", ss.size(), 2 * (1 + 2 * kOrderingSeeds), kOrderingSeeds);
    ok &= yours == found;
  }
  // 4b: Peterson's lock with the orders store buffers keep (release stores, acquire loads), under
  // the relaxed memory model, which also lets a load go ahead of an earlier store.
  if (store_buffers_only || !a.has("ordering")) {
    Exploration e = exploration(a, kLockSeeds);
    e.memories = {"relaxed"};
    std::vector<Schedule> ss = synclab::lab::schedules(e);
    std::printf("store buffers: Peterson's lock with release stores and acquire loads, under SYNCLAB_MEMORY=relaxed\n");
    const std::string args = "orderings --store-buffers --rounds " + std::to_string(rounds);
    Summary s = explore(ss, args, [&](const char* t) { return lab02::run_store_buffered(lab02::Where::blocks, rounds, t); }, a);
    print_summary(s);
    const bool broken = s.overlapping || s.unordered;
    const lab02::Verdict found = broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
    const lab02::Verdict yours = lab02::peterson_with_store_buffers();
    std::printf("  exploration: %s%s; your verdict (peterson_with_store_buffers): %s -> %s\n", lab02::name(found),
                broken ? "" : " in every explored run", lab02::name(yours), yours == found ? "agrees" : "does not agree");
    ok &= yours == found;
  }
  return ok;
}

// ---- message passing (not graded) ------------------------------------------------------------------
// The memory model at work: publishing data through a flag, with and without fences, explored
// under SYNCLAB_MEMORY=relaxed. Shows how often the reader saw the flag but an old data value.
bool cmd_message_passing(const Args& a) {
  const bool fence = a.has("fence");
  const std::string args = std::string("message-passing") + (fence ? " --fence" : "");
  // stale (or bad): a run whose reader saw the flag but an old data value.
  const synclab::lab::TraceChoice trace(a, "stale", {"stale"});
  std::printf("message passing%s: block 0 stores data = 42, then flag = 1; block 1 waits for flag, then reads data\n",
              fence ? " with __threadfence() on both sides" : " without a fence");
  if (!synclab::lab::on_simulator()) {
    int old = 0, runs = int(a.num("runs", 1000));
    for (int i = 0; i < runs; ++i) old += lab02::run_message_passing(fence).words.at(2) != 42;
    std::printf("  %d runs on the GPU: the reader saw an old data value in %d\n", runs, old);
    return true;
  }
  Exploration e = exploration(a, kLockSeeds);
  if (!a.has("memory")) e.memories = {"relaxed"};
  const std::vector<Schedule> ss = synclab::lab::schedules(e);
  int runs = 0, old = 0, stuck = 0;
  std::string first_old;
  std::vector<Report> reports;
  for (const Schedule& sc : ss) {
    lab02::LockRun r = synclab::lab::run_under(sc, [&] { return lab02::run_message_passing(fence); });
    ++runs;
    if (r.stuck) {
      ++stuck;
      continue;
    }
    const bool saw_old = r.words.at(2) != 42;
    if (saw_old && !old++) first_old = replay(args, sc);
    for (const Report& rep : r.reports) reports.push_back(rep);
    if (trace.wants(saw_old, saw_old ? "stale" : "")) {
      trace.recording(sc);
      synclab::lab::apply(sc);
      lab02::run_message_passing(fence, trace.file().c_str());
    }
  }
  std::printf("  %s: the reader saw flag = 1 but data = 0 (an old value) in %d of %d runs%s\n",
              synclab::lab::describe(ss).c_str(), old, runs, stuck ? (", " + std::to_string(stuck) + " stuck").c_str() : "");
  if (old) std::printf("  first:\n    %s\n", first_old.c_str());
  if (!reports.empty()) {
    std::printf("  reports:\n");
    print_reports(reports, 2);
  }
  if (fence)
    std::printf("  The fences order the writer's data store before its flag store, and the reader's flag load before\n"
                "  its data load: a reader that saw the flag cannot read the old data.\n");
  else
    std::printf("  Nothing orders the two stores, or the two loads: the reader may see the flag and still the old\n"
                "  data. Watch it: ./synclab scenario 02 message-passing. The fix, fences on both sides:\n"
                "  %s message-passing --fence.\n",
                synclab::lab::program_command("lab02").c_str());
  return true;
}

// ---- bakery -----------------------------------------------------------------------------------------
struct BakeryShape {
  int threads;
  lab02::Where where;
  int rounds, seeds;
};

bool bakery_shape(const Args& a, const BakeryShape& sh) {
  const std::string args = "bakery --threads " + std::to_string(sh.threads) + where_arg(sh.where) + " --rounds " +
                           std::to_string(sh.rounds);
  std::printf("bakery, %d threads (%s), %d rounds each:\n", sh.threads, lab02::name(sh.where), sh.rounds);
  Summary s = explore(synclab::lab::schedules(exploration(a, sh.seeds)), args,
                      [&](const char* t) { return lab02::run_bakery(sh.threads, sh.where, sh.rounds, t); }, a);
  print_summary(s);
  if (sh.where == lab02::Where::lanes) {
    std::printf("  (lanes of one warp: they tie on labels; under lockstep the winner waits at the\n"
                "   reconvergence point for lanes that spin, so expect stuck runs there)\n");
    return safe_runs(s);
  }
  const bool ok = safe_runs(s) && s.completed == s.runs;
  if (!ok) std::printf("  expected: every run completes, one thread inside at a time, no reports\n");
  return ok;
}

// Graded: 3 warps, 2 rounds (30 seeds); 4 blocks, 2 rounds (15 seeds); 2 warps, 3 rounds (15 seeds).
bool cmd_bakery(const Args& a) {
  if (a.has("threads") || a.has("where") || a.has("rounds"))
    return bakery_shape(a, {int(a.num("threads", 3)), where_of(a, "warps"), int(a.num("rounds", 2)), kLockSeeds / 2});
  bool ok = bakery_shape(a, {3, lab02::Where::warps, 2, kLockSeeds / 2});
  ok &= bakery_shape(a, {4, lab02::Where::blocks, 2, kLockSeeds / 4});
  ok &= bakery_shape(a, {2, lab02::Where::warps, 3, kLockSeeds / 4});
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab02", "Lab 02: Peterson and bakery (labs/02-peterson-bakery/README.md)");
  cmds.add("v1", "[--where blocks|warps] [--rounds R] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 1: v1 keeps mutual exclusion, and can deadlock (default: lane 0 of two warps; alone 3 rounds,\n"
           "      together 2)", {"where", "rounds", "show", "trace"}, cmd_v1);
  cmds.add("v2", "[--where blocks|warps] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 2: v2 keeps mutual exclusion, but not progress (default: lane 0 of two warps)",
           {"where", "show", "trace"}, cmd_v2);
  cmds.add("peterson", "[--where blocks|warps|lanes] [--rounds R] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 3a/3b: Peterson's lock (default: blocks, warps and lanes, 2 rounds)",
           {"where", "rounds", "show", "trace"}, cmd_peterson);
  cmds.add("peterson-lanes", "[--rounds R] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 3c: Peterson for two lanes, both warp models (default 3 rounds)", {"rounds", "show", "trace"},
           cmd_peterson_lanes);
  cmds.add("orderings", "[--ordering K | --store-buffers] [--rounds R] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 4: which orderings of Peterson break, and (4b) Peterson with the orders a store buffer\n"
           "      keeps under the relaxed memory model; your verdicts (default: all four and 4b, 2 rounds)",
           {"ordering", "store-buffers", "rounds", "show", "trace"}, cmd_orderings);
  cmds.add("bakery", "[--threads N] [--where blocks|warps|lanes] [--rounds R] [--show any|bad|good|stuck|overlap --trace FILE]",
           "task 5: the bakery lock for N threads (default: the graded 3 warps, 4 blocks, and 2 warps with\n"
           "      3 rounds; any of these options: one launch, 3 threads in warps, 2 rounds)",
           {"threads", "where", "rounds", "show", "trace"}, cmd_bakery);
  cmds.add("message-passing", "[--fence] [--show stale|any|bad|good --trace FILE]",
           "not graded: publishing data through a flag, without (or --fence: with) __threadfence(), explored\n"
           "      under the relaxed memory model; how often the reader sees the flag but old data",
           {"fence", "show", "trace", "runs"}, cmd_message_passing, true, /*in_all=*/false);
  return cmds.run(argc, argv);
}
