// Lab 02 (Peterson and bakery): the harness program (provided). One sub-command per task; each
// explores schedules, checks mutual exclusion and progress in every run, and says what went wrong.
//
//   lab02 v1             [--where blocks|warps] [--rounds R] [--seeds N] [--show stuck --trace FILE]
//   lab02 v2             [--where blocks|warps] [--seeds N] [--show stuck --trace FILE]
//   lab02 peterson       [--where blocks|warps|lanes] [--rounds R] [--seeds N] [--trace FILE]
//   lab02 peterson-lanes [--rounds R] [--seeds N] [--trace FILE]
//   lab02 orderings      [--ordering K] [--seeds N] [--show overlap --trace FILE]
//   lab02 bakery         [--threads N] [--where blocks|warps|lanes] [--rounds R] [--seeds N] [--trace FILE]
//   lab02 all            every task's check
//
// On the simulator each command explores schedules (rr, then pct and random seeds, both warp
// models); on a GPU it repeats the run (v1 and v2 only where they cannot hang). --trace records
// the first explored run that shows --show (stuck, overlap, any) for synclab-viz.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "lab02.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

Exploration exploration(const Args& a, int default_seeds) {
  Exploration e;
  e.pct_seeds = e.random_seeds = int(a.num("seeds", default_seeds));
  e.gpu_runs = int(a.num("runs", 20));
  e.pct_depth = unsigned(a.num("depth", 3));
  if (a.has("model")) e.models = {a.get("model", "its")};
  return e;
}

lab02::Where where_of(const Args& a, const std::string& fallback) {
  std::string w = a.get("where", fallback);
  if (w == "blocks") return lab02::Where::blocks;
  if (w == "warps") return lab02::Where::warps;
  if (w == "lanes") return lab02::Where::lanes;
  throw std::invalid_argument("--where is blocks, warps or lanes");
}

void print_reports(const std::vector<Report>& rs, size_t limit = 4) {
  std::set<std::string> seen;
  for (const Report& r : rs) {
    std::string b = synclab::lab::brief(r);
    if (!seen.insert(b).second) continue;
    if (seen.size() > limit) { std::printf("    ...\n"); break; }
    std::printf("    %s\n", b.c_str());
  }
}

// What exploring one lock found.
struct Summary {
  int runs = 0, completed = 0, stuck = 0, overlapping = 0, bad_state = 0, lost = 0, unordered = 0;
  std::string first_stuck, first_overlap, first_bad, first_lost, first_report, first_unordered;
  std::vector<Report> checker_reports;  // reports other than hang/deadlock
  std::vector<Report> stuck_reports;
};

template <class RunFn>
Summary explore(const std::vector<Schedule>& ss, RunFn run, const Args& a) {
  Summary s;
  const std::string trace = a.get("trace", ""), show = a.get("show", "any");
  bool traced = false;
  for (const Schedule& sc : ss) {
    synclab::lab::apply(sc);
    lab02::LockRun r = run(nullptr);
    ++s.runs;
    for (const Report& rep : r.reports) {
      bool stuck_kind = rep.kind == "hang" || rep.kind == "deadlock" || rep.kind == "budget";
      (stuck_kind ? s.stuck_reports : s.checker_reports).push_back(rep);
      if (!stuck_kind && s.first_report.empty()) s.first_report = sc.replay();
    }
    // A race inside the critical section: the two threads' critical sections were not ordered
    // by the lock, so they could have overlapped even if in this run they did not.
    bool cs_race = false;
    for (const Report& rep : r.reports)
      cs_race |= rep.kind == "race" && rep.short_where().rfind("lab02_kernels.cuh", 0) == 0;
    if (cs_race && !s.unordered++) s.first_unordered = sc.replay();
    if (r.stuck) {
      if (!s.stuck++) s.first_stuck = sc.replay();
    } else {
      if (r.completed()) ++s.completed;
      if (r.overlaps > 0 && !s.overlapping++) s.first_overlap = sc.replay();
      if (r.bad_state > 0 && !s.bad_state++) s.first_bad = sc.replay();
      if (r.counter != r.entries && !s.lost++) s.first_lost = sc.replay();
    }
    bool wanted = show == "any" || (show == "stuck" && r.stuck) || (show == "overlap" && !r.stuck && r.overlaps > 0);
    if (!trace.empty() && !traced && wanted) {
      std::printf("recording %s with %s\n", trace.c_str(), sc.replay().c_str());
      synclab::lab::apply(sc);
      run(trace.c_str());
      traced = true;
    }
  }
  if (!trace.empty() && !traced) std::printf("  no explored run showed '%s', so no trace was recorded\n", show.c_str());
  return s;
}

void print_summary(const Summary& s, const std::vector<Schedule>& ss) {
  if (ss.empty()) return;
  std::set<std::string> models;
  for (const Schedule& sc : ss) models.insert(sc.model);
  std::string how = "on the GPU";
  if (!ss[0].on_gpu()) {
    how = "rr, pct and random seeds; model";
    for (const std::string& m : models) how += (how.back() == 'l' ? " " : " and ") + m;
  }
  std::printf("  %d runs (%s): %d completed every critical section", s.runs, how.c_str(), s.completed);
  std::printf(", %d stuck\n", s.stuck);
  if (s.stuck)
    std::printf("  stuck (hang or deadlock) in %d runs, first: %s\n", s.stuck, s.first_stuck.c_str());
  if (s.overlapping)
    std::printf("  MUTUAL EXCLUSION BROKEN: two threads inside at once in %d runs, first: %s\n", s.overlapping,
                s.first_overlap.c_str());
  if (s.unordered)
    std::printf("  MUTUAL EXCLUSION BROKEN: the critical sections of the two threads raced (nothing in the lock\n"
                "  ordered them) in %d runs, first: %s\n", s.unordered, s.first_unordered.c_str());
  if (s.lost) std::printf("  the plain counter lost increments in %d runs, first: %s\n", s.lost, s.first_lost.c_str());
  if (s.bad_state)
    std::printf("  the lock's words were not what the algorithm says while a thread held it, in %d runs, first: %s\n",
                s.bad_state, s.first_bad.c_str());
  if (!s.stuck_reports.empty()) {
    std::printf("  where the threads were stuck:\n");
    print_reports(s.stuck_reports, 2);
  }
  if (!s.checker_reports.empty()) {
    std::printf("  the checkers reported (first under %s):\n", s.first_report.c_str());
    print_reports(s.checker_reports);
  }
}

bool safe_runs(const Summary& s) { return !s.overlapping && !s.lost && !s.bad_state && s.checker_reports.empty(); }

// ---- v1 -------------------------------------------------------------------------------------------
bool cmd_v1(const Args& a) {
  const lab02::Where where = where_of(a, "warps");
  const int rounds = int(a.num("rounds", 2));
  bool ok = true;
  std::printf("v1 (flags), one thread alone, then the other, %d rounds each:\n", rounds);
  auto alone = [&](const char*) { return lab02::run_two_thread_sequence(lab02::TwoThreadKernel::v1, where, rounds); };
  Args none(0, nullptr, 0);
  Summary sa = explore(synclab::lab::schedules(exploration(a, 2)), alone, none);
  print_summary(sa, synclab::lab::schedules(exploration(a, 2)));
  ok &= safe_runs(sa) && sa.completed == sa.runs;
  if (sa.completed != sa.runs) std::printf("  a thread alone must always get in (progress when alone)\n");
  if (!synclab::lab::on_simulator()) {
    std::printf("  (on a GPU the two threads are not run together: v1 can deadlock for ever)\n");
    return ok;
  }
  std::printf("v1, both threads at once (%s), %d rounds each:\n", lab02::name(where), rounds);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 8));
  Summary s = explore(ss, [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::v1, where, rounds, 3u, t); }, a);
  print_summary(s, ss);
  ok &= safe_runs(s) && s.stuck > 0;
  if (!s.stuck) std::printf("  expected some schedule to deadlock: both flags up, both threads waiting\n");
  return ok;
}

// ---- v2 -------------------------------------------------------------------------------------------
bool cmd_v2(const Args& a) {
  const lab02::Where where = where_of(a, "warps");
  bool ok = true;
  std::printf("v2 (victim), both threads at once (%s), one round each:\n", lab02::name(where));
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 8));
  Summary s1 = explore(ss, [&](const char*) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, where, 1); }, Args(0, nullptr, 0));
  print_summary(s1, ss);
  ok &= safe_runs(s1) && s1.completed == s1.runs;
  if (!synclab::lab::on_simulator()) {
    std::printf("  (on a GPU v2 is not run alone or for more rounds: it can wait for ever)\n");
    return ok;
  }
  std::printf("v2, thread 0 alone:\n");
  Summary sa = explore(ss, [&](const char*) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, where, 1, 1u); }, Args(0, nullptr, 0));
  print_summary(sa, ss);
  ok &= sa.stuck == sa.runs;
  if (sa.stuck != sa.runs) std::printf("  expected: alone, a thread waits for ever (nobody else will be the victim)\n");
  std::printf("v2, both threads, 2 rounds each:\n");
  Summary s2 = explore(ss, [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::v2, where, 2, 3u, t); }, a);
  print_summary(s2, ss);
  ok &= safe_runs(s2);
  if (!s2.stuck) std::printf("  (this exploration found no run stuck; try --seeds 100: one thread can finish while the other\n"
                             "   still has a round to go, and then nobody is left to be the victim)\n");
  return ok;
}

// ---- Peterson -----------------------------------------------------------------------------------------
bool peterson_at(const Args& a, lab02::Where where) {
  const int rounds = int(a.num("rounds", 3));
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 8));
  std::printf("peterson, two threads (%s), %d rounds each:\n", lab02::name(where), rounds);
  Summary s = explore(ss, [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson, where, rounds, 3u, t); }, a);
  print_summary(s, ss);
  if (where != lab02::Where::lanes || !synclab::lab::on_simulator()) {
    bool ok = safe_runs(s) && s.completed == s.runs;
    if (!ok) std::printf("  expected: every run completes, one thread inside at a time, no reports\n");
    return ok;
  }
  // Two lanes of one warp: lockstep runs them together, so the lane that wins waits at the
  // reconvergence point after the loop for a warp-mate that spins: stuck under lockstep only.
  int its_runs = 0;
  for (const Schedule& sc : ss) its_runs += sc.model == "its";
  std::printf("  (two lanes of one warp: expected to complete under its and to get stuck under lockstep)\n");
  return safe_runs(s) && s.completed == its_runs && s.stuck == s.runs - its_runs;
}

bool cmd_peterson(const Args& a) {
  if (a.has("where")) return peterson_at(a, where_of(a, "warps"));
  return peterson_at(a, lab02::Where::blocks) & peterson_at(a, lab02::Where::warps) & peterson_at(a, lab02::Where::lanes);
}

bool cmd_peterson_lanes(const Args& a) {
  const int rounds = int(a.num("rounds", 3));
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 8));
  std::printf("peterson_lanes_kernel, lanes 0 and 1 of one warp, %d rounds each:\n", rounds);
  Summary s = explore(ss, [&](const char* t) { return lab02::run_two_thread(lab02::TwoThreadKernel::peterson_lanes, lab02::Where::lanes, rounds, 3u, t); }, a);
  print_summary(s, ss);
  bool ok = safe_runs(s) && s.completed == s.runs;
  if (!ok) std::printf("  expected: every run completes under both warp models, one lane inside at a time\n");
  return ok;
}

// ---- orderings --------------------------------------------------------------------------------------
bool cmd_orderings(const Args& a) {
  std::vector<int> which{0, 1, 2, 3};
  if (a.has("ordering")) which = {int(a.num("ordering", 0))};
  bool ok = true;
  if (!synclab::lab::on_simulator()) {
    // A GPU shows one interleaving per run and rarely the bad one: the verdicts need exploration.
    for (int o : which)
      std::printf("ordering %d: %s\n  your verdict: %s (check it on the simulator: lab02 orderings)\n", o,
                  lab02::kOrderingText[o], lab02::name(lab02::ordering_verdict(o)));
    for (int o : which) ok &= lab02::ordering_verdict(o) != lab02::Verdict::unknown;
    return ok;
  }
  for (int o : which) {
    // One thread must stop between its two stores while the other runs through its doorway:
    // about one schedule in a hundred does, so this explores 100 seeds of each scheduler.
    std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 100));
    std::printf("ordering %d: %s\n", o, lab02::kOrderingText[o]);
    const int rounds = int(a.num("rounds", 2));
    Summary s = explore(ss, [&](const char* t) { return lab02::run_ordering(o, lab02::Where::warps, rounds, t); }, a);
    print_summary(s, ss);
    const bool broken = s.overlapping || s.unordered;
    const lab02::Verdict found = broken ? lab02::Verdict::breaks : lab02::Verdict::safe;
    const lab02::Verdict yours = lab02::ordering_verdict(o);
    std::printf("  exploration: %s%s; your verdict (ordering_verdict): %s -> %s\n", lab02::name(found),
                broken ? "" : " in every explored run", lab02::name(yours),
                yours == found ? "agrees" : "does not agree");
    ok &= yours == found;
  }
  std::printf("store buffers (processor consistency), your verdict on Peterson: %s (the simulator runs every schedule\n"
              "  sequentially consistent, so this one is for you to reason out: README, task 4b)\n",
              lab02::name(lab02::peterson_with_store_buffers()));
  return ok;
}

// ---- bakery -----------------------------------------------------------------------------------------
bool cmd_bakery(const Args& a) {
  const int n = int(a.num("threads", 3));
  const int rounds = int(a.num("rounds", 2));
  std::vector<lab02::Where> places{lab02::Where::warps, lab02::Where::blocks};
  if (a.has("where")) places = {where_of(a, "warps")};
  bool ok = true;
  for (lab02::Where where : places) {
    std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 6));
    std::printf("bakery, %d threads (%s), %d rounds each:\n", n, lab02::name(where), rounds);
    Summary s = explore(ss, [&](const char* t) { return lab02::run_bakery(n, where, rounds, t); }, a);
    print_summary(s, ss);
    if (where == lab02::Where::lanes) {
      std::printf("  (lanes of one warp: they tie on labels; under lockstep the winner waits at the\n"
                  "   reconvergence point for lanes that spin, so expect stuck runs there)\n");
      ok &= safe_runs(s);
      continue;
    }
    ok &= safe_runs(s) && s.completed == s.runs;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab02", "Lab 02: Peterson and bakery (labs/02-peterson-bakery/README.md)");
  cmds.add("v1", "[--where blocks|warps] [--rounds R]", "task 1: v1 keeps mutual exclusion, and can deadlock", cmd_v1);
  cmds.add("v2", "[--where blocks|warps]", "task 2: v2 keeps mutual exclusion, but not progress", cmd_v2);
  cmds.add("peterson", "[--where blocks|warps|lanes] [--rounds R]", "task 3a/3b: Peterson's lock", cmd_peterson);
  cmds.add("peterson-lanes", "[--rounds R]", "task 3c: Peterson for two lanes, both warp models", cmd_peterson_lanes);
  cmds.add("orderings", "[--ordering K]", "task 4: which orderings of Peterson break; your verdicts", cmd_orderings);
  cmds.add("bakery", "[--threads N] [--where blocks|warps|lanes]", "task 5: the bakery lock for N threads", cmd_bakery);
  return cmds.run(argc, argv);
}
