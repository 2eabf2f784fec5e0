// Lab 03 (atomic locks): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab03 naive      [--blocks B --threads T] [--show deadlock|finished|any|bad|good --trace FILE]
//   lab03 lock       [--kernel locked|naive] [--blocks B --threads T --rounds R] [--show finished|deadlock|any|bad|good --trace FILE]
//   lab03 single     [--blocks B --threads T]
//   lab03 puzzle     [--blocks B --threads T]
//   lab03 buckets    [--keys N --buckets K --blocks B --threads T --backoff NS --data-seed S]
//                    [--show finished|deadlock|any|bad|good --trace FILE]
//   lab03 contention [--kernel backoff|aggregated] [--blocks B --threads T --rounds R]
//   lab03 all        every task's check
//   (and the exploration options of synclab_lab.h: --seeds N, --model M (or --models), --sched P,
//   --seed S, ...)
//
// Without shape options a command runs the launch shapes and inputs of the task's graded tests,
// over the same schedules (rr, pct and random seeds; both warp models unless --model says
// otherwise); on a GPU it repeats the run. Every failure names the command that replays it.
// --trace records one run for synclab-viz: the first explored run that --show names (synclab_lab.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lab03.h"
#include "synclab_lab.h"
#include "lab03_kernels.cuh"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

// Every lock runs under both memory models: a lock must hold where the GPU reorders too.
Exploration exploration(const Args& a, int default_seeds) {
  return synclab::lab::exploration_from(a, default_seeds, 5, {"sc", "relaxed"});
}

// The command that replays one run of this program.
std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab03", args, s); }

using synclab::lab::shape_args;

// "did not finish: it deadlocked" from a failed run's reports (the simulator stops a stuck launch
// and CUDA reports it as a timeout); CUDA's message when no report says why.
std::string not_finished(const lab03::Outcome& r) {
  const std::string how = synclab::lab::stuck_word(r.reports);
  return how.empty() ? "did not finish (" + r.error + ")" : "did not finish: it " + how;
}

using synclab::lab::print_reports;

void print_first_report(const std::vector<Report>& rs) {
  if (rs.empty()) return;
  std::printf("  the first report in full:\n%s\n", rs.front().text.c_str());
}

using synclab::lab::TraceChoice;

// The words --show takes besides any, bad and good: the run's way of ending.
const char* ending(bool finished) { return finished ? "finished" : "deadlock"; }

// ---- task 1a: the naive lock ---------------------------------------------------------------------
bool naive_shape(const Args& a, const std::vector<std::string>& models, int blocks, int threads) {
  Exploration e = exploration(a, 2);
  if (!a.has("model") && !a.has("models") && !std::getenv("SYNCLAB_MODEL")) e.models = models;
  std::vector<Schedule> ss = synclab::lab::schedules(e);
  std::map<std::string, std::set<bool>> finished;  // per model: the outcomes seen
  std::map<std::string, std::vector<Report>> reports;
  std::map<std::string, std::string> first_run;    // per model: the first run's replay
  const TraceChoice trace(a, "deadlock", {"deadlock", "finished"});
  const std::string args = "naive " + shape_args(blocks, threads);
  for (const Schedule& s : ss) {
    lab03::CountResult r = synclab::lab::run_under(s, [&] {
      return lab03::run_count(lab03::CountKernel::naive, blocks, threads, 1);
    });
    finished[s.model].insert(r.finished);
    if (!first_run.count(s.model)) first_run[s.model] = replay(args, s);
    reports[s.model].insert(reports[s.model].end(), r.reports.begin(), r.reports.end());
    if (trace.wants(!r.finished, ending(r.finished))) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab03::run_count(lab03::CountKernel::naive, blocks, threads, 1, trace.file().c_str());
    }
  }
  std::printf("count_naive<<<%d, %d>>>, %s:\n", blocks, threads, synclab::lab::describe(ss).c_str());
  bool ok = true;
  for (const auto& [model, seen] : finished) {
    const char* what = seen == std::set<bool>{true} ? "always finished"
                       : seen == std::set<bool>{false} ? "never finished" : "finished in some runs only";
    std::printf("  %s: %s (one run: %s)\n", model.c_str(), what, first_run[model].c_str());
    if (!reports[model].empty()) print_reports(reports[model], 2);
    if (seen.size() == 1) {
      bool p = lab03::predicted_naive_finishes(model, blocks, threads);
      std::printf("    your prediction (predicted_naive_finishes in lock.cu): %s -> %s\n",
                  p ? "finishes" : "never finishes", p == *seen.begin() ? "right" : "WRONG");
      ok = ok && p == *seen.begin();
    }
  }
  for (const auto& [model, rs] : reports)
    if (!rs.empty() && trace.word() == "deadlock") {
      std::printf("  (%s)", model.c_str());
      print_first_report(rs);
      break;
    }
  return ok;
}

bool cmd_naive(const Args& a) {
  const std::vector<std::string> both{"its", "lockstep"};
  if (a.has("blocks") || a.has("threads"))
    return naive_shape(a, both, int(a.num("blocks", 1)), int(a.num("threads", 32)));
  // The graded launches (the student's own with SYNCLAB_STUDENT), each under the model the graded
  // test asks about.
  const std::vector<lab03::NaiveLaunch> launches = lab03::task1a_launches(synclab::lab::student_id());
  std::string names;
  for (const lab03::NaiveLaunch& l : launches)
    names += (names.empty() ? "<<<" : ", <<<") + std::to_string(l.blocks) + ", " + std::to_string(l.threads) +
             ">>> " + l.model;
  synclab::lab::print_graded_cases("task 1a is graded on " + names, "six");
  std::map<std::pair<int, int>, std::vector<std::string>> models;  // launch -> models asked about, in order
  std::vector<std::pair<int, int>> order;
  for (const lab03::NaiveLaunch& l : launches) {
    const std::pair<int, int> key{l.blocks, l.threads};
    if (!models.count(key)) order.push_back(key);
    models[key].push_back(l.model);
  }
  bool ok = true;
  for (const auto& key : order) ok &= naive_shape(a, models[key], key.first, key.second);
  return ok;
}

// ---- task 1c and 5: counting under a lock -------------------------------------------------------
struct CountShape {
  int blocks, threads, rounds, seeds;
};

bool count_shape(const Args& a, const std::string& command, lab03::CountKernel kernel, const char* kernel_arg,
                 const CountShape& sh) {
  const int blocks = sh.blocks, threads = sh.threads, rounds = sh.rounds;
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  const int want = blocks * threads * rounds;
  const int want_sections = kernel == lab03::CountKernel::warp_aggregated ? blocks * ((threads + 31) / 32) * rounds : want;
  const std::string args = command + " --kernel " + kernel_arg + " " + shape_args(blocks, threads) + " --rounds " +
                           std::to_string(rounds);
  const TraceChoice trace(a, "finished", {"finished", "deadlock"});
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab03::CountResult r = synclab::lab::run_under(s, [&] {
      return lab03::run_count(kernel, blocks, threads, rounds);
    });
    std::string what;
    if (!r.finished) what = not_finished(r);
    else if (r.counter != want) what = "counter " + std::to_string(r.counter) + ", expected " + std::to_string(want);
    else if (r.sections != want_sections)
      what = std::to_string(r.sections) + " critical sections, expected " + std::to_string(want_sections);
    else if (r.lock != 0) what = "the lock word was left at " + std::to_string(r.lock);
    what = tally.add(what, r.reports, replay(args, s));
    if (trace.wants(!what.empty(), ending(r.finished))) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab03::run_count(kernel, blocks, threads, rounds, trace.file().c_str());
    }
  }
  std::printf("%s<<<%d, %d>>>, %d round(s), %s:\n", lab03::name(kernel), blocks, threads, rounds,
              synclab::lab::describe(ss).c_str());
  tally.print("every run counted " + std::to_string(want) + " in " + std::to_string(want_sections) +
              " critical sections");
  return tally.passed();
}

lab03::CountKernel count_kernel(const std::string& k) {
  if (k == "naive") return lab03::CountKernel::naive;
  if (k == "locked") return lab03::CountKernel::locked;
  if (k == "backoff") return lab03::CountKernel::backoff;
  if (k == "aggregated") return lab03::CountKernel::warp_aggregated;
  throw std::invalid_argument("--kernel is naive, locked, backoff or aggregated, not '" + k + "'");
}

bool has_shape(const Args& a) { return a.has("blocks") || a.has("threads") || a.has("rounds"); }

// Graded (task 1): one warp of 32 (2 rounds) and a warp of 5 (3 rounds), 4 seeds; two warps,
// three blocks of 40 (1 round), four blocks of one thread (3 rounds), 3 seeds.
bool cmd_lock(const Args& a) {
  const std::string k = a.get("kernel", "locked");
  const lab03::CountKernel kernel = count_kernel(k);
  if (has_shape(a))
    return count_shape(a, "lock", kernel, k.c_str(),
                       {int(a.num("blocks", 1)), int(a.num("threads", 32)), int(a.num("rounds", 2)), 4});
  bool ok = true;
  for (const CountShape& sh : std::vector<CountShape>{{1, 32, 2, 4}, {1, 5, 3, 4}, {1, 64, 1, 3}, {3, 40, 1, 3}, {4, 1, 3, 3}})
    ok &= count_shape(a, "lock", kernel, k.c_str(), sh);
  return ok;
}

// Graded (task 5): backoff <<<1,32>>> 2 rounds and <<<3,40>>> 1 round; aggregated <<<1,32>>> 3
// rounds and <<<3,64>>> 2 rounds; 3 seeds each.
bool cmd_contention(const Args& a) {
  std::vector<std::string> kernels{"backoff", "aggregated"};
  if (a.has("kernel")) kernels = {a.get("kernel", "")};
  bool ok = true;
  for (const std::string& k : kernels) {
    const lab03::CountKernel kernel = count_kernel(k);
    if (has_shape(a)) {
      ok &= count_shape(a, "contention", kernel, k.c_str(),
                        {int(a.num("blocks", 2)), int(a.num("threads", 64)), int(a.num("rounds", 2)), 3});
      continue;
    }
    const std::vector<CountShape> shapes = kernel == lab03::CountKernel::warp_aggregated
                                               ? std::vector<CountShape>{{1, 32, 3, 3}, {3, 64, 2, 3}}
                                               : std::vector<CountShape>{{1, 32, 2, 3}, {3, 40, 1, 3}};
    for (const CountShape& sh : shapes) ok &= count_shape(a, "contention", kernel, k.c_str(), sh);
  }
  return ok;
}

// ---- task 2: single -----------------------------------------------------------------------------
bool single_shape(const Args& a, bool per_block, int blocks, int threads, int seeds) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, seeds));
  const std::string args = "single " + shape_args(blocks, threads);
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab03::SingleResult r = synclab::lab::run_under(s, [&] {
      return per_block ? lab03::run_single_per_block(blocks, threads) : lab03::run_single_grid(blocks, threads);
    });
    std::string what;
    if (!r.finished) what = not_finished(r);
    for (size_t b = 0; what.empty() && b < r.entered.size(); ++b) {
      const int limit = per_block ? threads : blocks * threads;
      if (r.entered[b] != 1)
        what = std::to_string(r.entered[b]) + " threads ran the section" + (per_block ? " of block " + std::to_string(b) : "");
      else if (r.chosen[b] < 0 || r.chosen[b] >= limit)
        what = "chosen = " + std::to_string(r.chosen[b]) + " is not a thread of the launch";
    }
    tally.add(what, r.reports, replay(args, s));
  }
  std::printf("%s<<<%d, %d>>>, %s:\n", per_block ? "single_per_block" : "single_grid", blocks, threads,
              synclab::lab::describe(ss).c_str());
  tally.print(std::string("in every run exactly one thread") + (per_block ? " per block" : "") + " ran the section");
  return tally.passed();
}

// Graded (task 2): single_grid <<<1,32>>>, <<<3,40>>>, <<<4,1>>> (3 seeds); single_per_block
// <<<3,40>>>, <<<2,64>>> (3 seeds), <<<2,1>>> (2 seeds).
bool cmd_single(const Args& a) {
  if (a.has("blocks") || a.has("threads")) {
    const int b = int(a.num("blocks", 3)), t = int(a.num("threads", 40));
    return single_shape(a, false, b, t, 3) & single_shape(a, true, b, t, 3);
  }
  bool ok = single_shape(a, false, 1, 32, 3);
  ok &= single_shape(a, false, 3, 40, 3);
  ok &= single_shape(a, false, 4, 1, 3);
  ok &= single_shape(a, true, 3, 40, 3);
  ok &= single_shape(a, true, 2, 64, 3);
  ok &= single_shape(a, true, 2, 1, 2);
  return ok;
}

// ---- task 3: the puzzle -------------------------------------------------------------------------
std::string output_text(const lab03::PuzzleOutput& o) {
  std::string t;
  for (const std::string& l : o) t += (t.empty() ? "" : " / ") + l;
  return t.empty() ? "(nothing)" : t;
}

// Outputs listed by thread number ("Thread 9" before "Thread 10").
std::vector<lab03::PuzzleOutput> in_order(const std::set<lab03::PuzzleOutput>& outputs) {
  std::vector<lab03::PuzzleOutput> v(outputs.begin(), outputs.end());
  std::sort(v.begin(), v.end(), lab03::output_less);
  return v;
}

bool puzzle_shape(const Args& a, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 4));
  const std::string args = "puzzle " + shape_args(blocks, threads);
  std::set<lab03::PuzzleOutput> seen;
  std::map<lab03::PuzzleOutput, std::string> first_with;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    lab03::PuzzleResult r = synclab::lab::run_under(s, [&] { return lab03::run_puzzle(blocks, threads); });
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    if (r.finished && seen.insert(r.output).second) first_with[r.output] = replay(args, s);
  }
  std::set<lab03::PuzzleOutput> predicted;
  for (const lab03::PuzzleOutput& o : lab03::predicted_puzzle_outputs(blocks, threads))
    predicted.insert(lab03::normalized(o));
  std::printf("cas_puzzle<<<%d, %d>>>, %s: %zu different output(s)\n", blocks, threads,
              synclab::lab::describe(ss).c_str(), seen.size());
  for (const lab03::PuzzleOutput& o : in_order(seen))
    std::printf("  seen:      %s%s\n    first in: %s\n", output_text(o).c_str(),
                predicted.count(o) ? "" : "   <- not in your prediction", first_with[o].c_str());
  int unseen = 0;
  for (const lab03::PuzzleOutput& o : in_order(predicted))
    if (!seen.count(o) && ++unseen <= 4) std::printf("  predicted: %s (not seen here)\n", output_text(o).c_str());
  if (unseen > 4) std::printf("  ... and %d more predicted outputs not seen here\n", unseen - 4);
  if (predicted.empty()) std::printf("  your prediction (predicted_puzzle_outputs in puzzle.cu): none yet (TODO 3)\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  std::printf("  (exploration shows what this simulator's schedules produce; it applies the lanes of one\n"
              "   warp's atomic in lane order, so a prediction may rightly contain outputs not seen here)\n");
  bool contains = true;
  for (const lab03::PuzzleOutput& o : seen) contains = contains && predicted.count(o);
  return !predicted.empty() && contains;
}

// Graded (task 3): <<<2,32>>>, and <<<3,1>>>, <<<1,2>>>, <<<2,3>>> or the student's own three small
// launches (lab03::task3_small_launches); 4 seeds.
bool cmd_puzzle(const Args& a) {
  if (a.has("blocks") || a.has("threads"))
    return puzzle_shape(a, int(a.num("blocks", 2)), int(a.num("threads", 32)));
  const std::vector<std::pair<int, int>> small = lab03::task3_small_launches(synclab::lab::student_id());
  std::string names;
  for (const auto& [b, t] : small) names += ", <<<" + std::to_string(b) + ", " + std::to_string(t) + ">>>";
  synclab::lab::print_graded_cases("task 3 is graded on <<<2, 32>>>" + names, "small launches");
  bool ok = puzzle_shape(a, 2, 32);
  for (const auto& [b, t] : small) ok &= puzzle_shape(a, b, t);
  return ok;
}

// ---- task 4: buckets ----------------------------------------------------------------------------
struct BucketShape {
  int keys, buckets, blocks, threads;
  unsigned backoff;
  int seeds;
};

bool buckets_shape(const Args& a, const BucketShape& sh) {
  const int n = sh.keys, nb = sh.buckets, blocks = sh.blocks, threads = sh.threads;
  const uint32_t data_seed = uint32_t(a.num("data-seed", lab03::keys_seed(n, nb)));
  std::vector<int> keys = lab03::random_keys(n, data_seed);
  std::vector<std::multiset<int>> want(nb);
  for (int k : keys) want[lab03::bucket_of(k, nb)].insert(k);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  std::string args = "buckets --keys " + std::to_string(n) + " --buckets " + std::to_string(nb) + " " +
                     shape_args(blocks, threads) + " --backoff " + std::to_string(sh.backoff);
  if (a.has("data-seed")) args += " --data-seed " + std::to_string(data_seed);
  const TraceChoice trace(a, "finished", {"finished", "deadlock"});
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab03::BucketResult r = synclab::lab::run_under(s, [&] {
      return lab03::run_buckets(keys, nb, blocks, threads, sh.backoff);
    });
    std::string what;
    if (!r.finished) what = not_finished(r);
    for (int b = 0; what.empty() && b < nb; ++b) {
      std::multiset<int> got(r.items[b].begin(), r.items[b].end());
      if (r.counts[b] != int(want[b].size()))
        what = "bucket " + std::to_string(b) + " holds " + std::to_string(r.counts[b]) + " keys, expected " +
               std::to_string(want[b].size());
      else if (got != want[b]) what = "bucket " + std::to_string(b) + " holds other keys than it should";
      else if (r.locks[b] != 0) what = "bucket " + std::to_string(b) + "'s lock was left taken";
    }
    what = tally.add(what, r.reports, replay(args, s));
    if (trace.wants(!what.empty(), ending(r.finished))) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab03::run_buckets(keys, nb, blocks, threads, sh.backoff, trace.file().c_str());
    }
  }
  std::printf("insert_keys<<<%d, %d>>>: %d keys into %d buckets, backoff %u ns, %s:\n", blocks, threads, n, nb,
              sh.backoff, synclab::lab::describe(ss).c_str());
  tally.print("every run filled every bucket exactly");
  return tally.passed();
}

// Graded (task 4): 32 keys into 2 buckets <<<1,32>>>, 96 into 3 <<<2,48>>> (3 seeds); 160 into
// 16 <<<4,40>>>, 96 into 4 <<<3,32>>> with 64 ns backoff (2 seeds).
bool cmd_buckets(const Args& a) {
  if (a.has("keys") || a.has("buckets") || a.has("blocks") || a.has("threads") || a.has("backoff") ||
      a.has("data-seed")) {
    const BucketShape sh{int(a.num("keys", 96)), int(a.num("buckets", 3)), int(a.num("blocks", 2)),
                         int(a.num("threads", 48)), unsigned(a.num("backoff", 0)), 3};
    if (sh.keys < 0 || sh.buckets < 1) throw std::invalid_argument("--keys needs at least 0 and --buckets at least 1");
    return buckets_shape(a, sh);
  }
  bool ok = true;
  for (const BucketShape& sh : std::vector<BucketShape>{{32, 2, 1, 32, 0, 3}, {96, 3, 2, 48, 0, 3},
                                                        {160, 16, 4, 40, 0, 2}, {96, 4, 3, 32, 64, 2}})
    ok &= buckets_shape(a, sh);
  return ok;
}

// ---- task 6: a lock of your own design -----------------------------------------------------------
bool own_shape(const Args& a, int blocks, int threads, int rounds, int seeds) {
  const std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, seeds));
  const std::string args = "own " + shape_args(blocks, threads) + " --rounds " + std::to_string(rounds);
  synclab::lab::RunTally tally;
  std::string advice;
  for (const Schedule& s : ss) {
    lab03::OwnResult r = synclab::lab::run_under(s, [&] { return lab03::run_own(blocks, threads, rounds); });
    const std::string problem = r.finished ? lab03::own_problem(r, blocks, threads, rounds) : not_finished(r);
    const std::string why = tally.add(problem, r.reports, replay(args, s));
    if (!why.empty() && advice.empty()) advice = lab03::own_advice(r, problem);
  }
  std::printf("own_count<<<%d, %d>>>, %d rounds, %s:\n", blocks, threads, rounds, synclab::lab::describe(ss).c_str());
  tally.print("every section alone, each request once", advice);
  bool ok = tally.passed();
  if (synclab::lab::on_simulator()) {
    synclab_sim_counts c{};
    const lab03::OwnResult r = synclab::lab::run_counted([&] { return lab03::run_own(blocks, threads, rounds); }, &c);
    const unsigned long long atomics = c.global_atomic_lane_ops + c.shared_atomic_lane_ops;
    const unsigned long long sections = unsigned(blocks * threads * rounds);
    std::printf("atomic operations (its, rr): %llu for %llu sections, one each the harness's; the contract allows "
                "%llu in all%s\n",
                atomics, sections, 3 * sections, atomics <= 3 * sections ? "" : ": NOT YET");
    ok = ok && r.finished && atomics <= 3 * sections;
  }
  return ok;
}

// Graded (task 6): <<<1,32>>> 3 rounds, <<<2,16>>> 3, <<<3,4>>> 2 (seeds 1-2, both memory models);
// the atomics counted on <<<2,16>>>.
bool cmd_own(const Args& a) {
  if (has_shape(a))
    return own_shape(a, int(a.num("blocks", 2)), int(a.num("threads", 16)), int(a.num("rounds", 3)), 2);
  bool ok = true;
  for (const auto& [b, t, r] : std::vector<std::tuple<int, int, int>>{{1, 32, 3}, {2, 16, 3}, {3, 4, 2}})
    ok &= own_shape(a, b, t, r, 2);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab03", "Lab 03: atomic locks (labs/03-atomic-locks/README.md)");
  cmds.add("naive", "[--blocks B --threads T] [--show deadlock|finished|any|bad|good --trace FILE]",
           "task 1a: does the CPU-style lock finish? compare with your prediction (default: the graded\n"
           "      launches <<<1,32>>> under both models, <<<4,1>>>, <<<2,2>>>, <<<1,1>>> lockstep, <<<3,40>>> its)",
           {"blocks", "threads", "show", "trace"}, cmd_naive);
  cmds.add("lock", "[--kernel locked|naive] [--blocks B --threads T --rounds R] [--show finished|deadlock|any|bad|good --trace FILE]",
           "task 1b/1c: count_locked must count right, finish and stay silent (default: the graded\n"
           "      <<<1,32>>> 2 rounds, <<<1,5>>> 3, <<<1,64>>> 1, <<<3,40>>> 1, <<<4,1>>> 3)",
           {"kernel", "blocks", "threads", "rounds", "show", "trace"}, cmd_lock);
  cmds.add("single", "[--blocks B --threads T]",
           "task 2: exactly one thread (per grid, per block; default: the graded shapes)", {"blocks", "threads"},
           cmd_single);
  cmds.add("puzzle", "[--blocks B --threads T]",
           "task 3: the atomicCAS puzzle against your prediction (default <<<2,32>>>, <<<3,1>>>, <<<1,2>>>, <<<2,3>>>)",
           {"blocks", "threads"}, cmd_puzzle);
  cmds.add("buckets", "[--keys N --buckets K --blocks B --threads T --backoff NS --data-seed S] [--show finished|deadlock|any|bad|good --trace FILE]",
           "task 4: the per-bucket lock table against a host table (default: the graded four tables)",
           {"keys", "buckets", "blocks", "threads", "backoff", "data-seed", "show", "trace"}, cmd_buckets);
  cmds.add("contention", "[--kernel backoff|aggregated] [--blocks B --threads T --rounds R]",
           "task 5: backoff and warp-aggregated locking (default: the graded shapes of both)",
           {"kernel", "blocks", "threads", "rounds"}, cmd_contention);
  cmds.add("own", "[--blocks B --threads T --rounds R]",
           "task 6: your lock: every section alone under both models, and its atomics (default: the graded shapes)",
           {"blocks", "threads", "rounds"}, cmd_own);
  return cmds.run(argc, argv);
}
